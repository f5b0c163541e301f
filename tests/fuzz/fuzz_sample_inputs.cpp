// libFuzzer target over onnx2hpp's --sample-inputs path end to end (issue 16, item 10):
// arbitrary bytes as the .npz file next to one of a fixed set of small models, converted in
// memory like `onnx2hpp MODEL --sample-inputs FILE.npz -o OUT` (convert_model_bytes with the
// file's bytes). npz_fuzzer covers the reader alone; this one also reaches what the arrays
// decide: input types from the value ranges (assign_input_types), the checks against the
// model's declared types and element counts, Concat widening of sample-typed inputs (KV
// caches), and everything after (fusion, emission) with those types.
//
// Input layout: byte 0 picks the model (modulo the number of models), the rest is the npz
// image. The models are the *.onnx files in $TESSERA_FUZZ_SAMPLE_MODELS, sorted by name
// (tests/fuzz/run_fuzzer.sh fills build-fuzz/sample-models with the Deeploy corpus models that
// have an inputs.npz, at most 64 kB, and seeds each with its own inputs.npz).
//
// Expected outcomes: a header, a conversion_error or the npz reader's std::runtime_error, each
// with a message. Everything else is a finding (sanitizer report, crash, other exception,
// hang, unbounded memory).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <vector>

#include "converter.hpp"
#include "diagnostics.hpp"
#include "findings.hpp"

namespace {

std::vector<std::string> models;

[[noreturn]] void finding(const char* what, const char* type, const char* message) {
  tessera::fuzz::finding("sample_inputs_fuzzer", what, type, message);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* dir = std::getenv("TESSERA_FUZZ_SAMPLE_MODELS");
  if (dir == nullptr || *dir == '\0') {
    std::fprintf(stderr, "sample_inputs_fuzzer: set TESSERA_FUZZ_SAMPLE_MODELS to a directory of .onnx files\n");
    std::exit(2);
  }
  std::vector<std::filesystem::path> paths;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".onnx") paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());
  for (const auto& p : paths) {
    std::ifstream file(p, std::ios::binary);
    models.emplace_back((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  }
  if (models.empty()) {
    std::fprintf(stderr, "sample_inputs_fuzzer: no .onnx file in %s\n", dir);
    std::exit(2);
  }
  std::fprintf(stderr, "sample_inputs_fuzzer: %zu models from %s\n", models.size(), dir);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string& model = models[data[0] % models.size()];
  const std::string image(reinterpret_cast<const char*>(data) + 1, size - 1);
  tessera::onnx2hpp::options o;
  o.model_path = "fuzz.onnx";
  o.output_path = "fuzz.hpp";
  o.sample_inputs_path = "fuzz.npz";
  o.namespace_name = "fuzz";
  tessera::fuzz::unexpected_exceptions_are_findings("sample_inputs_fuzzer", [&] {
    try {
      const std::string header = tessera::onnx2hpp::convert_model_bytes(model, o, &image);
      if (header.empty()) finding("empty header", "", "");
    } catch (const tessera::onnx2hpp::conversion_error& e) {
      if (*e.what() == '\0') finding("conversion_error without a message", "", "");
    } catch (const std::runtime_error& e) {  // the npz reader's errors (main prints them alike)
      if (typeid(e) != typeid(std::runtime_error)) finding("unexpected exception", typeid(e).name(), e.what());
      if (*e.what() == '\0') finding("runtime_error without a message", "", "");
    }
  });
  return 0;
}
