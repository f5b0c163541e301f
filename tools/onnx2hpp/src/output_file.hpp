// Where the header goes, and writing it so that no reader ever sees a partial file.
#pragma once

#include <string>

namespace tessera::onnx2hpp {

/// The file `-o` designates, checked before the conversion starts:
///   - a symbolic link is followed (at most 40 links): the header replaces the link's target
///     and the link stays a link;
///   - it must not be the model or the sample file (the same file by device and inode, or the
///     same path once links are followed): a conversion never overwrites its own input;
///   - it must not be a directory.
/// Throws conversion_error with the OS reason where one applies.
std::string resolve_output_path(const std::string& output, const std::string& model, const std::string& samples);

/// Writes `text` to a new temporary file in `path`'s directory (mkstemp: unique, so two
/// conversions to one output never share it), flushes it and renames it onto `path`: a
/// reader sees the old file or the whole new one, and a failed run leaves nothing behind.
/// The file gets the existing file's permissions, or 0666 less the umask for a new one.
/// Errors name the file and the OS reason (strerror).
void write_atomically(const std::string& path, const std::string& text);

/// write_atomically unless `path` already holds exactly `text`: then the file is left alone
/// (same inode, same modification time), so rerunning a conversion whose header did not change
/// does not make the build recompile everything that includes it. Returns whether it wrote.
/// A file that cannot be read for the comparison is simply rewritten.
bool write_if_changed(const std::string& path, const std::string& text);

}  // namespace tessera::onnx2hpp
