// libFuzzer target over the npz reader (tools/common/npz.cpp): arbitrary bytes as the
// `--sample-inputs` file of onnx2hpp (tessera::tools::read_npz_image, the same code as
// read_npz without the file).
//
// Expected outcomes: arrays whose values fill their shape, or a std::runtime_error with a
// non-empty message (the `onnx2hpp: error:` line). Everything else is a finding: a sanitizer
// report, a crash, another exception (std::length_error "vector::_M_default_append",
// std::bad_alloc: the reader let a crafted size through), a hang or unbounded memory.
//
// The same file builds without libFuzzer (replay_main.cpp) for the default ctest's smoke
// run over tests/tools/samples (tests/tools/CMakeLists.txt).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>
#include <typeinfo>

#include "findings.hpp"
#include "npz.hpp"

namespace {

[[noreturn]] void finding(const char* what, const char* type, const char* message) {
  tessera::fuzz::finding("npz_fuzzer", what, type, message);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view image(reinterpret_cast<const char*>(data), size);
  tessera::fuzz::unexpected_exceptions_are_findings("npz_fuzzer", [&] {
    try {
      for (const auto& array : tessera::tools::read_npz_image(image, "fuzz.npz")) {
        std::uint64_t count = 1;
        for (std::int64_t d : array.shape) {
          if (d < 0) finding("negative extent", "", array.name.c_str());
          count *= static_cast<std::uint64_t>(d);
        }
        if (count != array.values.size()) finding("values do not fill the shape", "", array.name.c_str());
      }
    } catch (const std::runtime_error& e) {
      if (*e.what() == '\0') finding("runtime_error without a message", "", "");
    }
  });
  return 0;
}
