// onnx2hpp: converts a quantized ONNX model into a Tessera header (see --help).
//
// The header is written to OUT.tmp and renamed into place only when the whole conversion
// succeeded, so a failed run never leaves a partial header for a build to pick up.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli.hpp"
#include "converter.hpp"
#include "diagnostics.hpp"

namespace {

void write_atomically(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    if (!file || !(file << text) || !file.flush()) {
      std::remove(temporary.c_str());
      tessera::onnx2hpp::fail("cannot write '" + temporary + "'");
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::remove(temporary.c_str());
    tessera::onnx2hpp::fail("cannot rename '" + temporary + "' to '" + path + "': " + error.message());
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const tessera::onnx2hpp::options options = tessera::onnx2hpp::parse_command_line(argc, argv);
    if (options.help) {
      std::cout << tessera::onnx2hpp::usage_text();
      return 0;
    }
    write_atomically(options.output_path, tessera::onnx2hpp::convert(options));
    return 0;
  } catch (const std::exception& e) {
    // conversion_error, the npz reader's runtime_error, and anything protobuf/ONNX throw.
    std::cerr << "onnx2hpp: error: " << e.what() << '\n';
    return 1;
  }
}
