#include "types.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include "diagnostics.hpp"
#include "shape_math.hpp"

namespace tessera::onnx2hpp {
namespace {

// Candidate types from narrowest to widest; the first that holds a value range wins.
constexpr tessera::dtype widening_order[] = {tessera::dtype::u8, tessera::dtype::s8, tessera::dtype::u16,
                                             tessera::dtype::s16, tessera::dtype::s32};

bool smallest_type_holding(std::int64_t lo, std::int64_t hi, tessera::dtype& out) {
  for (tessera::dtype d : widening_order) {
    if (lo >= tessera::min_of(d) && hi <= tessera::max_of(d)) {
      out = d;
      return true;
    }
  }
  return false;
}

bool dtype_of_onnx(int elem_type, tessera::dtype& out) {
  switch (elem_type) {
    case onnx::TensorProto::INT8: out = tessera::dtype::s8; return true;
    case onnx::TensorProto::UINT8: out = tessera::dtype::u8; return true;
    case onnx::TensorProto::INT16: out = tessera::dtype::s16; return true;
    case onnx::TensorProto::UINT16: out = tessera::dtype::u16; return true;
    case onnx::TensorProto::INT32: out = tessera::dtype::s32; return true;
    default: return false;
  }
}

std::string onnx_type_name(int elem_type) {
  return onnx::TensorProto::DataType_IsValid(elem_type)
             ? onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(elem_type))
             : std::to_string(elem_type);
}

/// An explicit type must not contradict a graph input the model declares as an integer type:
/// it may store the same values narrower (u8 for a declared INT32), never other values (s8
/// for a declared UINT8, whose zero point 128 would then mean -128). A float (or other)
/// declaration says nothing about the integers, so any type goes.
void require_within_declared_type(const tensor& t, tessera::dtype type, const std::string& option) {
  tessera::dtype declared{};
  if (!dtype_of_onnx(t.onnx_elem_type, declared)) return;
  if (tessera::min_of(type) < tessera::min_of(declared) || tessera::max_of(type) > tessera::max_of(declared))
    fail(fmt::format("{} contradicts the model: graph input '{}' is declared {} [{}, {}], and {} holds [{}, {}] "
                     "(omit --input-type to use the declared type)",
                     option, t.onnx_name, onnx_type_name(t.onnx_elem_type), tessera::min_of(declared),
                     tessera::max_of(declared), tessera::name_of(type), tessera::min_of(type), tessera::max_of(type)));
}

std::string input_names(const graph& g) {
  std::string names;
  for (tensor_ref t : g.inputs)
    names += (names.empty() ? "'" : ", '") + g.tensors[static_cast<std::size_t>(t)].onnx_name + "'";
  return names;
}

/// The type of a node's first output, given its input types (all inputs are typed).
tessera::dtype output_type(const graph& g, const node& n) {
  if (n.fused_requant) return n.fused_requant->type;
  if (const auto* rq = std::get_if<ops::requant_shift>(&n.operation)) return rq->rq.type;
  if (const auto* lut = std::get_if<ops::lookup_table>(&n.operation)) return lut->output;
  if (const auto* r = std::get_if<ops::reduce>(&n.operation); r != nullptr && !r->mean) return tessera::dtype::s32;
  if (std::holds_alternative<ops::softmax>(n.operation)) return tessera::dtype::u8;
  if (const auto* norm = std::get_if<ops::normalization>(&n.operation)) return norm->output;
  if (accepts_fused_requant(n.operation)) return tessera::dtype::s32;  // an int32 accumulator
  return g.tensors[static_cast<std::size_t>(n.inputs[0])].type;        // data movement keeps the type
}

bool passes_type_through(const any_op& o) {
  return std::holds_alternative<ops::pool>(o) || std::holds_alternative<ops::pad>(o) ||
         std::holds_alternative<ops::reshape>(o) || std::holds_alternative<ops::concat>(o) ||
         std::holds_alternative<ops::slice>(o) || std::holds_alternative<ops::transpose>(o) ||
         std::holds_alternative<ops::gather>(o);
}

/// The graph inputs whose type flows unchanged into `t`; false if a fixed type does too.
bool widenable_sources(const graph& g, const std::vector<int>& producer, tensor_ref t, std::set<tensor_ref>& sources) {
  const tensor& x = g.tensors[static_cast<std::size_t>(t)];
  if (g.is_graph_input(t)) {
    sources.insert(t);
    return x.type_from_samples;
  }
  const node& p = g.nodes[static_cast<std::size_t>(producer[static_cast<std::size_t>(t)])];
  if (!passes_type_through(p.operation)) return false;
  for (tensor_ref in : p.inputs)
    if (!widenable_sources(g, producer, in, sources)) return false;
  return true;
}

/// A Concat whose inputs have different types: widens the sample-typed graph inputs behind
/// the narrower ones to a common type and returns true, or fails when that is impossible.
/// Returns false when the inputs already agree.
bool widen_concat_inputs(graph& g, const std::vector<int>& producer, const node& n) {
  // An empty graph input (an empty KV cache) typed by --sample-inputs had no values to type it:
  // it takes the type of the Concat's first non-empty input, once (then it is fixed).
  for (tensor_ref in : n.inputs) {
    tensor& t = g.tensors[static_cast<std::size_t>(in)];
    if (!g.is_graph_input(in) || !t.type_from_samples || element_count(t.shape) != 0) continue;
    for (tensor_ref other : n.inputs) {
      const tensor& o = g.tensors[static_cast<std::size_t>(other)];
      if (element_count(o.shape) == 0) continue;
      t.type_from_samples = false;
      if (t.type != o.type) {
        t.type = o.type;
        return true;
      }
      break;
    }
  }
  std::int64_t lo = 0, hi = 0;
  std::set<tessera::dtype> seen;
  std::string listed;
  for (tensor_ref in : n.inputs) {
    const tessera::dtype d = g.tensors[static_cast<std::size_t>(in)].type;
    seen.insert(d);
    lo = std::min(lo, tessera::min_of(d));
    hi = std::max(hi, tessera::max_of(d));
    listed += std::string(listed.empty() ? "" : ", ") + tessera::name_of(d);
  }
  if (seen.size() == 1) return false;
  tessera::dtype common{};
  std::set<tensor_ref> sources;
  bool widenable = smallest_type_holding(lo, hi, common);
  for (tensor_ref in : n.inputs)
    if (widenable && g.tensors[static_cast<std::size_t>(in)].type != common)
      widenable = widenable_sources(g, producer, in, sources);
  if (!widenable)
    node_context{n.name, n.onnx_op}.fail("inputs have different element types (" + listed +
                                         "); Concat does not convert types");
  for (tensor_ref s : sources) g.tensors[static_cast<std::size_t>(s)].type = common;
  return true;
}

/// Types every node output once; returns true when it widened graph inputs for a Concat
/// (the caller starts over).
bool type_nodes(graph& g) {
  const std::vector<int> producer = g.producers();

  for (const node& n : g.nodes) {
    if (std::holds_alternative<ops::concat>(n.operation) && widen_concat_inputs(g, producer, n)) return true;
    const tessera::dtype type = output_type(g, n);
    for (tensor_ref out : n.outputs) g.tensors[static_cast<std::size_t>(out)].type = type;
    if (const auto* lut = std::get_if<ops::lookup_table>(&n.operation)) {
      // The table is indexed for the type the quantization declared (its zero point's type).
      const tessera::dtype in = g.tensors[static_cast<std::size_t>(n.inputs[0])].type;
      if (in != lut->input)
        node_context{n.name, n.onnx_op}.fail(fmt::format("the input is {} but its zero point says {}",
                                                         tessera::name_of(in), tessera::name_of(lut->input)));
    }
    if (std::holds_alternative<ops::softmax>(n.operation) || std::holds_alternative<ops::normalization>(n.operation) ||
        std::holds_alternative<ops::resize>(n.operation)) {
      const tessera::dtype in = g.tensors[static_cast<std::size_t>(n.inputs[0])].type;
      if (in != tessera::dtype::s8 && in != tessera::dtype::u8)
        node_context{n.name, n.onnx_op}.fail(
            fmt::format("the input is {}; the kernel takes an 8-bit tensor (int8 or uint8)", tessera::name_of(in)));
    }
    if (const auto* pad = std::get_if<ops::pad>(&n.operation)) {
      if (pad->value < tessera::min_of(type) || pad->value > tessera::max_of(type))
        node_context{n.name, n.onnx_op}.fail(
            fmt::format("pad value {} does not fit the {} input", pad->value, tessera::name_of(type)));
    }
  }
  return false;
}

}  // namespace

void assign_input_types(graph& g, const std::vector<std::pair<std::string, tessera::dtype>>& explicit_types,
                        const std::vector<tools::npy_array>* samples) {
  std::vector<bool> typed(g.inputs.size(), false);
  for (const auto& [name, type] : explicit_types) {
    bool found = false;
    for (std::size_t i = 0; i < g.inputs.size(); ++i) {
      tensor& t = g.tensors[static_cast<std::size_t>(g.inputs[i])];
      if (t.onnx_name != name) continue;
      require_within_declared_type(t, type, "--input-type " + name + "=" + tessera::name_of(type));
      t.type = type;
      typed[i] = found = true;
    }
    if (!found)
      fail("--input-type " + name + ": the model has no graph input '" + name + "' (inputs: " + input_names(g) + ")");
  }
  for (std::size_t i = 0; i < g.inputs.size(); ++i) {
    if (typed[i]) continue;
    tensor& t = g.tensors[static_cast<std::size_t>(g.inputs[i])];
    const bool float_end = std::any_of(g.boundaries.begin(), g.boundaries.end(), [&](const boundary_quantization& b) {
      return b.input && b.index == static_cast<int>(i);
    });
    if (samples != nullptr && i < samples->size() && !float_end) {
      const tools::npy_array& sample = (*samples)[i];
      if (!sample.fraction_error.empty()) throw std::runtime_error(sample.fraction_error);
      if (static_cast<std::int64_t>(sample.values.size()) != element_count(t.shape))
        fail(fmt::format("--sample-inputs: array '{}' (position {}) has {} values but graph input '{}' {} has {}",
                         sample.name, i, sample.values.size(), t.onnx_name, to_string(t.shape),
                         element_count(t.shape)));
      const auto [lo, hi] = std::minmax_element(sample.values.begin(), sample.values.end());
      const std::int64_t low = sample.values.empty() ? 0 : *lo, high = sample.values.empty() ? 0 : *hi;
      if (!smallest_type_holding(low, high, t.type))
        fail(fmt::format("--sample-inputs: array '{}' holds values in [{}, {}], beyond int32", sample.name, low, high));
      tessera::dtype declared{};
      if (dtype_of_onnx(t.onnx_elem_type, declared) && (low < tessera::min_of(declared) || high > tessera::max_of(declared)))
        fail(fmt::format("--sample-inputs: array '{}' holds values in [{}, {}], but the model declares graph input '{}' "
                         "as {} [{}, {}]",
                         sample.name, low, high, t.onnx_name, onnx_type_name(t.onnx_elem_type), tessera::min_of(declared),
                         tessera::max_of(declared)));
      t.type_from_samples = true;
    } else if (!dtype_of_onnx(t.onnx_elem_type, t.type)) {
      fail(fmt::format(
          "graph input '{}' has ONNX type {}: pass --input-type {}=TYPE (s8, u8, s16, u16, s32) or "
          "--sample-inputs FILE.npz",
          t.onnx_name, onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(t.onnx_elem_type)),
          t.onnx_name));
    }
  }
}

void propagate_types(graph& g) {
  // Each round either finishes or widens at least one input to a strictly wider type, so
  // this ends after a few rounds.
  while (type_nodes(g)) {
  }
}

}  // namespace tessera::onnx2hpp
