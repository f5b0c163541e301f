#include "output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "diagnostics.hpp"

namespace tessera::onnx2hpp {
namespace {

namespace fs = std::filesystem;

std::string os_reason() { return std::strerror(errno); }

/// `path` with every symbolic link of its last component followed.
fs::path follow_links(fs::path path) {
  for (int hops = 0;; ++hops) {
    std::error_code error;
    const fs::file_status status = fs::symlink_status(path, error);
    if (error || status.type() != fs::file_type::symlink) return path;
    if (hops == 40) fail("cannot write '" + path.string() + "': too many levels of symbolic links");
    const fs::path target = fs::read_symlink(path, error);
    if (error) fail("cannot read the symbolic link '" + path.string() + "': " + error.message());
    path = target.is_absolute() ? target : path.parent_path() / target;
  }
}

/// Whether `a` and `b` are one file: same device and inode, or (when one does not exist yet)
/// the same absolute path with links and "." / ".." resolved.
bool same_file(const fs::path& a, const fs::path& b) {
  struct stat sa {}, sb {};
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  std::error_code ea, eb;
  const fs::path ca = fs::weakly_canonical(a, ea), cb = fs::weakly_canonical(b, eb);
  return !ea && !eb && ca == cb;
}

/// Writes all of `text` to `fd`.
bool write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

/// Whether the regular file `path` holds exactly `text` (false when it cannot be read).
bool holds_exactly(const std::string& path, const std::string& text) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || static_cast<std::uint64_t>(st.st_size) != text.size())
    return false;
  std::ifstream file(path, std::ios::binary);
  if (!file) return false;
  std::string chunk(std::size_t{1} << 16, '\0');
  std::size_t done = 0;
  while (done < text.size()) {
    file.read(chunk.data(), static_cast<std::streamsize>(std::min(chunk.size(), text.size() - done)));
    const auto n = static_cast<std::size_t>(file.gcount());
    if (n == 0 || text.compare(done, n, chunk.data(), n) != 0) return false;
    done += n;
  }
  return file.peek() == std::ifstream::traits_type::eof();  // not grown since the stat
}

}  // namespace

std::string resolve_output_path(const std::string& output, const std::string& model, const std::string& samples) {
  const fs::path target = follow_links(output);
  if (same_file(target, model))
    fail("-o '" + output + "' is the model itself" + (target != fs::path(output) ? " (through a link)" : std::string()) +
         ": onnx2hpp never overwrites its input");
  if (!samples.empty() && same_file(target, samples))
    fail("-o '" + output + "' is the --sample-inputs file: onnx2hpp never overwrites its input");
  std::error_code error;
  if (fs::is_directory(target, error)) fail("-o '" + output + "' is a directory; pass the header's file name");
  return target.string();
}

void write_atomically(const std::string& path, const std::string& text) {
  const fs::path target(path);
  const fs::path directory = target.has_parent_path() ? target.parent_path() : fs::path(".");
  // A hidden name in the same directory (rename never crosses file systems), unique per run.
  std::string hidden = ".";  // appended, not `"." + name`: GCC 12 warns falsely (-Wrestrict) on that
  hidden += target.filename().string();
  hidden += ".XXXXXX";
  const std::string pattern = (directory / hidden).string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  const int fd = ::mkstemp(name.data());
  if (fd < 0) fail("cannot write '" + path + "': cannot create a temporary file in '" + directory.string() + "': " + os_reason());
  const std::string temporary(name.data());
  const auto give_up = [&](const std::string& what) {
    const std::string reason = os_reason();
    ::close(fd);
    ::unlink(temporary.c_str());
    fail("cannot write '" + path + "': " + what + ": " + reason);
  };

  // mkstemp makes the file 0600; a header is as readable as any file the user makes.
  struct stat existing {};
  mode_t mode = 0;
  if (::stat(path.c_str(), &existing) == 0) {
    mode = existing.st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  if (::fchmod(fd, mode) != 0) give_up("cannot set the permissions of '" + temporary + "'");
  if (!write_all(fd, text)) give_up("writing '" + temporary + "' failed");
  if (::fsync(fd) != 0) give_up("flushing '" + temporary + "' failed");
  if (::close(fd) != 0) {
    const std::string reason = os_reason();
    ::unlink(temporary.c_str());
    fail("cannot write '" + path + "': closing '" + temporary + "' failed: " + reason);
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string reason = os_reason();
    ::unlink(temporary.c_str());
    fail("cannot rename '" + temporary + "' to '" + path + "': " + reason);
  }
}

bool write_if_changed(const std::string& path, const std::string& text) {
  if (holds_exactly(path, text)) return false;
  write_atomically(path, text);
  return true;
}

}  // namespace tessera::onnx2hpp
