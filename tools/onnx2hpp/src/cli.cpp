#include "cli.hpp"

#include <string_view>

#include "diagnostics.hpp"

namespace tessera::onnx2hpp {

std::string usage_text() {
  return R"(usage: onnx2hpp MODEL.onnx -o OUT.hpp [options]

Converts a quantized ONNX model (Deeploy/QuantLib integer dialect, or standard QDQ/QOperator
ONNX) into a Tessera header: constant arrays and a constexpr network type.

options:
  -o, --output OUT.hpp       header to write (written only when the conversion succeeds
                             and the file does not already hold the same bytes; never the
                             model; a symbolic link is written through)
  --namespace NS             C++ namespace of the header (default: the output file's stem)
  --no-fuse                  keep every RequantShift (and Pad, MatMul bias Add) as its own
                             node, so that every ONNX tensor, e.g. the int32 output of each
                             Conv, exists on the device; default: fuse them into their producer
  --input-type NAME=TYPE     element type of graph input NAME: s8, u8, s16, u16 or s32; for an
                             input the model declares as an integer type, a type within it
  --sample-inputs FILE.npz   infer input types from sample data (arrays matched to the graph
                             inputs by position): the smallest of u8, s8, u16, s16, s32 that
                             holds every value
  --batch N                  fix a dynamic batch (first) dimension of the graph inputs to N
  --shape NAME=D1,D2,...     fix the whole shape of graph input NAME (dynamic dimensions, or
                             a static shape checked against the model's)
  --float-boundary           also emit float_ends: with tessera::float_executor the device
                             takes float inputs and returns float outputs, quantizing and
                             dequantizing the float ends below as ONNX Runtime does (an error
                             when the model has no float input or output)
  --state IN=OUT             a KV cache: graph input IN and graph output OUT = Concat(IN, new
                             rows) become one state buffer that the device keeps between
                             calls and appends to in place (tessera::sequence_executor); one
                             option per cache, in the same order for the networks that share
                             the state (a one-step network and its prefill)
  --max-context N            the positions each state holds (required with --state)
  -h, --help                 print this help

A float graph input read by one QuantizeLinear, and a float graph output written by a
DequantizeLinear of an 8-bit tensor, are taken off: the network takes and returns the
integer tensors, and the header documents their scales and zero points
(meta::input_quantization, meta::output_quantization). With --float-boundary the
header also describes them for tessera::float_executor, which quantizes and dequantizes them on
the device; integer inputs and outputs of the same model stay integer.

Input types come from --input-type, else --sample-inputs, else the model's integer input type.
)";
}

bool parse_dtype(const std::string& text, tessera::dtype& out) {
  for (tessera::dtype d :
       {tessera::dtype::s8, tessera::dtype::u8, tessera::dtype::s16, tessera::dtype::u16, tessera::dtype::s32}) {
    if (text == tessera::name_of(d)) {
      out = d;
      return true;
    }
  }
  return false;
}

namespace {

/// Splits "--flag=value" forms; returns true and sets `value` when `arg` is `flag` in either form
/// (taking the next argument for the separate form).
bool option_value(std::string_view arg, std::string_view flag, int& i, int argc, const char* const* argv,
                  std::string& value) {
  if (arg == flag) {
    if (i + 1 >= argc) fail("option " + std::string(flag) + " needs a value (see --help)");
    value = argv[++i];
    return true;
  }
  if (arg.size() > flag.size() && arg.substr(0, flag.size()) == flag && arg[flag.size()] == '=') {
    value = std::string(arg.substr(flag.size() + 1));
    return true;
  }
  return false;
}

void add_input_type(options& o, const std::string& spec) {
  const std::size_t eq = spec.rfind('=');
  if (eq == std::string::npos || eq == 0) fail("--input-type expects NAME=TYPE, got '" + spec + "'");
  tessera::dtype type{};
  const std::string type_name = spec.substr(eq + 1);
  if (!parse_dtype(type_name, type))
    fail("--input-type " + spec + ": unknown type '" + type_name + "' (use s8, u8, s16, u16 or s32)");
  o.input_types.emplace_back(spec.substr(0, eq), type);
}

std::int64_t parse_extent(const std::string& text, const std::string& option) {
  std::int64_t v = 0;
  if (text.empty() || text.size() > 9) fail(option + ": '" + text + "' is not an extent from 1 to 999999999");
  for (char c : text) {
    if (c < '0' || c > '9') fail(option + ": '" + text + "' is not an extent from 1 to 999999999");
    v = v * 10 + (c - '0');
  }
  if (v < 1) fail(option + ": '" + text + "' is not an extent from 1 to 999999999");
  return v;
}

void add_shape(options& o, const std::string& spec) {
  const std::size_t eq = spec.rfind('=');
  if (eq == std::string::npos || eq == 0) fail("--shape expects NAME=D1,D2,..., got '" + spec + "'");
  std::vector<std::int64_t> dims;
  std::string rest = spec.substr(eq + 1);
  for (std::size_t start = 0;;) {
    const std::size_t comma = rest.find(',', start);
    dims.push_back(parse_extent(rest.substr(start, comma - start), "--shape " + spec));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  o.shapes.emplace_back(spec.substr(0, eq), std::move(dims));
}

void add_state(options& o, const std::string& spec) {
  const std::size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
    fail("--state expects IN=OUT (a cache graph input and the graph output that grows it), got '" + spec + "'");
  o.states.emplace_back(spec.substr(0, eq), spec.substr(eq + 1));
}

}  // namespace

options parse_command_line(int argc, const char* const* argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    std::string value;
    if (arg == "-h" || arg == "--help") {
      o.help = true;
    } else if (arg == "--no-fuse") {
      o.fuse = false;
    } else if (arg == "--float-boundary") {
      o.float_boundary = true;
    } else if (option_value(arg, "-o", i, argc, argv, value) || option_value(arg, "--output", i, argc, argv, value)) {
      o.output_path = value;
    } else if (option_value(arg, "--namespace", i, argc, argv, value)) {
      o.namespace_name = value;
    } else if (option_value(arg, "--input-type", i, argc, argv, value)) {
      add_input_type(o, value);
    } else if (option_value(arg, "--batch", i, argc, argv, value)) {
      o.batch = parse_extent(value, "--batch");
    } else if (option_value(arg, "--shape", i, argc, argv, value)) {
      add_shape(o, value);
    } else if (option_value(arg, "--state", i, argc, argv, value)) {
      add_state(o, value);
    } else if (option_value(arg, "--max-context", i, argc, argv, value)) {
      o.max_context = parse_extent(value, "--max-context");
    } else if (option_value(arg, "--sample-inputs", i, argc, argv, value)) {
      o.sample_inputs_path = value;
    } else if (arg.size() > 1 && arg[0] == '-') {
      fail("unknown option '" + std::string(arg) + "' (see --help)");
    } else if (o.model_path.empty()) {
      o.model_path = arg;
    } else {
      fail("more than one model given ('" + o.model_path + "', '" + std::string(arg) + "')");
    }
  }
  if (o.help) return o;
  if (o.model_path.empty()) fail("no model given (see --help)");
  if (o.output_path.empty()) fail("no output file given: pass -o OUT.hpp (see --help)");
  if (!o.states.empty() && o.max_context == 0) fail("--state needs --max-context N: the positions each state holds");
  if (o.states.empty() && o.max_context != 0) fail("--max-context is the capacity of the --state caches: give them too");
  if (!o.states.empty() && o.float_boundary) fail("--state with --float-boundary: not supported (the caches are integer tensors)");
  return o;
}

}  // namespace tessera::onnx2hpp
