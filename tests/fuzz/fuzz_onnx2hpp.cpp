// libFuzzer target over onnx2hpp: arbitrary bytes as a model file, converted in memory
// (tessera::onnx2hpp::convert_model_bytes, the same pipeline as `onnx2hpp MODEL -o OUT`).
//
// Expected outcomes: a header, or a conversion_error (the `onnx2hpp: error: ...` line of the
// command-line tool) with a non-empty message. Everything else is a finding: a sanitizer
// report, a crash, any other exception (std::out_of_range, std::bad_alloc, fmt::format_error,
// ... : the tool would still print it, but without naming node, op and reason), a hang
// (-timeout) or unbounded memory (-rss_limit_mb / -malloc_limit_mb).
//
// Like a user passing --input-type, every graph input that has no initializer and no
// integer element type gets an explicit type (s8, or u8 for some names), so that the later
// stages (types, fusion, layout, emission) are reached and not stopped at "pass --input-type".
// A model that converts is converted a second time with --no-fuse. A model with a cache pair (a
// graph output written by a Concat whose first input is a graph input) is converted once more
// with each such pair as --state and a --max-context of 1 to 8 (tools/onnx2hpp/src/state.hpp).
//
// TESSERA_FUZZ_PRINT_ERRORS=1 prints each expected error message (to sample them).
// TESSERA_FUZZ_SAVE_HEADERS=DIR writes every header that came out to DIR/<hash>.hpp (namespace
// `fuzz`): tests/fuzz/compile_converted.sh replays a saved corpus this way (-runs=0) and
// compiles what converted.
//
// onnx2hpp_struct_fuzzer is this target with the structure-aware mutator (onnx_mutator.cpp).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <functional>
#include <string>
#include <typeinfo>
#include <unordered_set>

#include <onnx/onnx_pb.h>

#include "converter.hpp"
#include "diagnostics.hpp"
#include "findings.hpp"

namespace {

bool print_errors = false;
std::string save_headers;  // TESSERA_FUZZ_SAVE_HEADERS

void save_header(const std::string& header) {
  char name[32];
  std::snprintf(name, sizeof name, "/%016zx.hpp", std::hash<std::string>{}(header));
  std::ofstream(save_headers + name, std::ios::binary) << header;
}

bool integer_elem_type(int t) {
  using tp = onnx::TensorProto;
  return t == tp::INT8 || t == tp::UINT8 || t == tp::INT16 || t == tp::UINT16 || t == tp::INT32;
}

/// `--input-type NAME=TYPE` for every graph input onnx2hpp would otherwise refuse untyped.
void add_input_types(const std::string& bytes, tessera::onnx2hpp::options& o) {
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) return;
  std::unordered_set<std::string> initializers;
  for (const auto& init : model.graph().initializer()) initializers.insert(init.name());
  std::unordered_set<std::string> seen;
  for (const auto& input : model.graph().input()) {
    if (initializers.count(input.name()) != 0 || !seen.insert(input.name()).second) continue;
    if (input.type().has_tensor_type() && integer_elem_type(input.type().tensor_type().elem_type())) continue;
    const bool unsigned_input = std::hash<std::string>{}(input.name()) % 4 == 0;
    o.input_types.emplace_back(input.name(), unsigned_input ? tessera::dtype::u8 : tessera::dtype::s8);
  }
}

/// `--state IN=OUT` for every Concat(IN, rows) of a graph input IN to a graph output OUT, and a
/// capacity drawn from the model's bytes; false when the model has none.
bool add_states(const std::string& bytes, tessera::onnx2hpp::options& o) {
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) return false;
  const auto& g = model.graph();
  std::unordered_set<std::string> inputs, outputs;
  for (const auto& v : g.input()) inputs.insert(v.name());
  for (const auto& v : g.output()) outputs.insert(v.name());
  for (const auto& n : g.node())
    if (n.op_type() == "Concat" && n.input_size() >= 1 && n.output_size() >= 1 && inputs.count(n.input(0)) != 0 &&
        outputs.count(n.output(0)) != 0)
      o.states.emplace_back(n.input(0), n.output(0));
  o.max_context = 1 + static_cast<std::int64_t>(std::hash<std::string>{}(bytes) % 8);
  return !o.states.empty();
}

[[noreturn]] void finding(const char* what, const char* type, const char* message) {
  tessera::fuzz::finding("onnx2hpp_fuzzer", what, type, message);
}

/// Converts once; true when a header came out.
bool convert_once(const std::string& bytes, const tessera::onnx2hpp::options& o) {
  return tessera::fuzz::unexpected_exceptions_are_findings("onnx2hpp_fuzzer", [&] {
    try {
      const std::string header = tessera::onnx2hpp::convert_model_bytes(bytes, o);
      if (header.empty()) finding("empty header", "", "");
      if (!save_headers.empty()) save_header(header);
      return true;
    } catch (const tessera::onnx2hpp::conversion_error& e) {
      const std::string message = e.what();
      if (message.empty()) finding("conversion_error without a message", "", "");
      if (print_errors) std::fprintf(stderr, "onnx2hpp: error: %s\n", message.c_str());
      return false;
    }
  });
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* p = std::getenv("TESSERA_FUZZ_PRINT_ERRORS");
  print_errors = p != nullptr && *p != '\0' && *p != '0';
  if (const char* dir = std::getenv("TESSERA_FUZZ_SAVE_HEADERS")) save_headers = dir;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  tessera::onnx2hpp::options o;
  o.model_path = "fuzz.onnx";
  o.output_path = "fuzz.hpp";
  o.namespace_name = "fuzz";
  add_input_types(bytes, o);
  if (convert_once(bytes, o)) {
    o.fuse = false;
    convert_once(bytes, o);
  }
  o.fuse = true;
  if (add_states(bytes, o)) convert_once(bytes, o);
  return 0;
}
