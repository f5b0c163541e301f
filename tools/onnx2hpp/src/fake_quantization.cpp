#include "fake_quantization.hpp"

#include <cmath>
#include <limits>
#include <optional>
#include <unordered_map>

#include "onnx_values.hpp"
#include "quantization.hpp"

namespace tessera::onnx2hpp {

const fake_float_end* fake_float_ends::input(const std::string& name) const {
  for (const auto& e : ends)
    if (e.input && e.onnx_name == name) return &e;
  return nullptr;
}

const fake_float_end* fake_float_ends::output(const std::string& name) const {
  for (const auto& e : ends)
    if (!e.input && e.onnx_name == name) return &e;
  return nullptr;
}

namespace {

using tp = onnx::TensorProto;

/// Who produces and who reads each tensor of a graph, and its constants.
class graph_view {
 public:
  explicit graph_view(const onnx::GraphProto& g) {
    for (const auto& init : g.initializer()) constants_[init.name()] = init;
    for (const auto& n : g.node()) {
      for (const auto& out : n.output()) producers_[out] = &n;
      for (const auto& in : n.input())
        if (!in.empty()) readers_[in].push_back(&n);
      if (n.op_type() == "Constant" && (n.domain().empty() || n.domain() == "ai.onnx") && n.output_size() == 1) {
        try {
          constants_[n.output(0)] = constant_node_tensor(n);
        } catch (const std::exception&) {  // malformed: the lowering reports it
        }
      }
    }
    for (const auto& o : g.output()) outputs_.insert(o.name());
  }

  const onnx::NodeProto* producer(const std::string& name) const {
    const auto it = producers_.find(name);
    return it == producers_.end() ? nullptr : it->second;
  }
  std::size_t reader_count(const std::string& name) const {
    const auto it = readers_.find(name);
    return it == readers_.end() ? 0 : it->second.size();
  }
  /// The one node that reads `name`, when the tensor is nothing else (no graph output).
  const onnx::NodeProto* only_reader(const std::string& name) const {
    if (reader_count(name) != 1 || outputs_.count(name) != 0) return nullptr;
    return readers_.at(name).front();
  }
  bool is_constant(const std::string& name) const { return constants_.count(name) != 0; }

  /// A constant float scalar (an initializer or a Constant node of one element), if `name` is one.
  std::optional<double> scalar(const std::string& name) const {
    const auto it = constants_.find(name);
    if (it == constants_.end()) return std::nullopt;
    const tp& t = it->second;
    for (auto d : t.dims())
      if (d != 1) return std::nullopt;
    if (t.data_type() != tp::FLOAT && t.data_type() != tp::DOUBLE) return std::nullopt;
    try {
      const std::vector<double> v = float_values(t, {name, "Constant"}, "constant");
      if (v.size() != 1 || !std::isfinite(v[0])) return std::nullopt;
      return v[0];
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }

 private:
  std::unordered_map<std::string, tp> constants_;
  std::unordered_map<std::string, const onnx::NodeProto*> producers_;
  std::unordered_map<std::string, std::vector<const onnx::NodeProto*>> readers_;
  std::unordered_set<std::string> outputs_;
};

bool is_default_domain(const onnx::NodeProto& n) { return n.domain().empty() || n.domain() == "ai.onnx"; }
bool is_op(const onnx::NodeProto* n, const char* op) {
  return n != nullptr && is_default_domain(*n) && n->op_type() == op && n->output_size() >= 1;
}

/// A scale or multiplier the device holds exactly: a positive finite float32 value.
bool is_float32_scale(double s) {
  return s > 0 && std::isfinite(s) && static_cast<double>(static_cast<float>(s)) == s &&
         std::isfinite(static_cast<float>(s));
}
/// A zero point or bound that float arithmetic adds exactly: an integer of at most 2^16.
bool is_small_integer(double v) { return std::nearbyint(v) == v && std::fabs(v) <= 65536; }

/// The other operand of a two-input node when one of them is `x` and the other a scalar.
std::optional<double> scalar_beside(const graph_view& view, const onnx::NodeProto& n, const std::string& x) {
  if (n.input_size() != 2) return std::nullopt;
  if (n.input(0) == x) return view.scalar(n.input(1));
  if (n.input(1) == x && n.op_type() != "Div" && n.op_type() != "Sub") return view.scalar(n.input(0));
  return std::nullopt;
}

std::optional<fake_float_end> input_chain(const graph_view& view, const std::string& x, int opset) {
  fake_float_end e;
  e.onnx_name = x;
  e.input = true;
  const auto take = [&](const onnx::NodeProto& n) {
    e.ops += (e.ops.empty() ? "" : ", ") + n.op_type();
    e.nodes.push_back(n.output(0));
  };
  // Div by the scale, or Mul by a multiplier.
  const onnx::NodeProto* n = view.only_reader(x);
  if (is_op(n, "Div") || is_op(n, "Mul")) {
    const std::optional<double> s = scalar_beside(view, *n, x);
    if (!s || !is_float32_scale(*s)) return std::nullopt;
    e.arithmetic = n->op_type() == "Div" ? tessera::float_arithmetic::divide : tessera::float_arithmetic::multiply;
    e.scale = *s;
  } else {
    return std::nullopt;
  }
  take(*n);
  std::string at = n->output(0);
  // The zero point, added (or its negation subtracted).
  n = view.only_reader(at);
  if (is_op(n, "Add") || is_op(n, "Sub")) {
    const std::optional<double> z = scalar_beside(view, *n, at);
    if (!z || !is_small_integer(*z)) return std::nullopt;
    e.zero_point = static_cast<std::int64_t>(n->op_type() == "Add" ? *z : -*z);
    take(*n);
    at = n->output(0);
    n = view.only_reader(at);
  }
  if (!is_op(n, "Round") || n->input_size() != 1) return std::nullopt;
  take(*n);
  at = n->output(0);
  n = view.only_reader(at);
  if (!is_op(n, "Clip")) return std::nullopt;
  double lo = 0, hi = 0;
  if (opset < 11 || n->input_size() == 1) {
    if (!has_attribute(*n, "min") || !has_attribute(*n, "max")) return std::nullopt;
    lo = float_attribute(*n, "min", 0);
    hi = float_attribute(*n, "max", 0);
  } else {
    if (n->input_size() != 3 || n->input(1).empty() || n->input(2).empty()) return std::nullopt;
    const std::optional<double> l = view.scalar(n->input(1)), h = view.scalar(n->input(2));
    if (!l || !h) return std::nullopt;
    lo = *l;
    hi = *h;
  }
  if (!is_small_integer(lo) || !is_small_integer(hi) || lo > hi) return std::nullopt;
  take(*n);
  at = n->output(0);
  // The integer type: the Cast's, or the first 8-bit type that holds the Clip's range.
  const onnx::NodeProto* cast = view.reader_count(at) == 1 ? view.only_reader(at) : nullptr;
  if (is_op(cast, "Cast") && (int_attribute(*cast, "to", 0) == tp::INT8 || int_attribute(*cast, "to", 0) == tp::UINT8)) {
    e.type = int_attribute(*cast, "to", 0) == tp::INT8 ? tessera::dtype::s8 : tessera::dtype::u8;
    take(*cast);
    at = cast->output(0);
  } else if (lo >= -128 && hi <= 127) {
    e.type = tessera::dtype::s8;
  } else if (lo >= 0 && hi <= 255) {
    e.type = tessera::dtype::u8;
  } else {
    return std::nullopt;
  }
  const double type_lo = e.type == tessera::dtype::s8 ? -128 : 0, type_hi = e.type == tessera::dtype::s8 ? 127 : 255;
  e.lo = static_cast<std::int64_t>(std::fmax(lo, type_lo));
  e.hi = static_cast<std::int64_t>(std::fmin(hi, type_hi));
  if (e.lo > e.hi) return std::nullopt;
  e.integer_tensor = at;
  return e;
}

std::optional<fake_float_end> output_chain(const graph_view& view, const std::string& y) {
  fake_float_end e;
  e.onnx_name = y;
  e.input = false;
  if (view.reader_count(y) != 0) return std::nullopt;  // also read inside the graph: not an end
  std::vector<std::string> ops;
  // Mul by the scale (DequantizeLinear's arithmetic), or Div by a divisor.
  const onnx::NodeProto* n = view.producer(y);
  if ((!is_op(n, "Mul") && !is_op(n, "Div")) || n->input_size() != 2) return std::nullopt;
  std::string at;
  std::optional<double> s;
  for (int i = 0; i < n->input_size() && !s; ++i) {
    if (n->op_type() == "Div" && i == 0) continue;
    s = view.scalar(n->input(i));
    if (s) at = n->input(1 - i);
  }
  if (!s || !is_float32_scale(*s)) return std::nullopt;
  e.arithmetic = n->op_type() == "Div" ? tessera::float_arithmetic::divide : tessera::float_arithmetic::linear;
  e.scale = *s;
  ops.push_back(n->op_type());
  e.nodes.push_back(n->output(0));
  // The zero point, subtracted (or its negation added).
  n = view.producer(at);
  if ((is_op(n, "Sub") || is_op(n, "Add")) && view.only_reader(at) != nullptr) {
    std::optional<double> z;
    std::string from;
    if (n->input_size() == 2 && view.scalar(n->input(1))) {
      z = view.scalar(n->input(1));
      from = n->input(0);
    } else if (n->op_type() == "Add" && n->input_size() == 2 && view.scalar(n->input(0))) {
      z = view.scalar(n->input(0));
      from = n->input(1);
    }
    if (z) {
      if (!is_small_integer(*z)) return std::nullopt;
      e.zero_point = static_cast<std::int64_t>(n->op_type() == "Sub" ? *z : -*z);
      ops.push_back(n->op_type());
      e.nodes.push_back(n->output(0));
      at = from;
      n = view.producer(at);
    }
  }
  // A Cast of the integer tensor to float.
  if (is_op(n, "Cast") && int_attribute(*n, "to", 0) == tp::FLOAT && view.only_reader(at) != nullptr &&
      n->input_size() == 1) {
    ops.push_back(n->op_type());
    e.nodes.push_back(n->output(0));
    at = n->input(0);
  }
  if (at.empty() || view.is_constant(at)) return std::nullopt;
  e.integer_tensor = at;
  for (auto it = ops.rbegin(); it != ops.rend(); ++it) e.ops += (e.ops.empty() ? "" : ", ") + *it;
  return e;
}

}  // namespace

fake_float_ends find_fake_float_ends(const onnx::ModelProto& model) {
  int opset = 0;
  for (const auto& op : model.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx") opset = static_cast<int>(op.version());
  const onnx::GraphProto& g = model.graph();
  const graph_view view(g);
  fake_float_ends found;
  const auto keep = [&](const fake_float_end& e) {
    found.taken.insert(e.nodes.begin(), e.nodes.end());
    found.ends.push_back(e);
  };
  for (const auto& input : g.input()) {
    if (view.is_constant(input.name()) || !input.type().has_tensor_type()) continue;
    if (input.type().tensor_type().elem_type() != tp::FLOAT) continue;
    if (const auto e = input_chain(view, input.name(), opset)) keep(*e);
  }
  for (const auto& output : g.output()) {
    if (!output.type().has_tensor_type() || output.type().tensor_type().elem_type() != tp::FLOAT) continue;
    if (const auto e = output_chain(view, output.name())) keep(*e);
  }
  return found;
}

}  // namespace tessera::onnx2hpp
