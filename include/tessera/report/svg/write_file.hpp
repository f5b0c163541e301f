// Writes a picture (or any report text) to a file. Host only.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace tessera::report {

/// Writes `text` to `path` (replacing it). Returns false when the file cannot be written, so
/// that a report that cannot save its pictures says so instead of stopping the program.
inline bool write_text_file(const std::string& path, std::string_view text) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  return std::fclose(f) == 0 && written;
}

}  // namespace tessera::report
