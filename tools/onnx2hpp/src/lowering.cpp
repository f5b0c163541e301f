#include "lowering.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <tessera/core/shape.hpp>

#include "lower_ops.hpp"
#include "onnx_values.hpp"
#include "shape_math.hpp"

namespace tessera::onnx2hpp {

// ---------------------------------------------------------------------------- op table

namespace {

struct op_entry {
  const char* op_type;
  lowering_function lower;
};

// Ops of the default ONNX domain that onnx2hpp lowers.
constexpr op_entry standard_ops[] = {
    {"Constant", lower_constant},
    {"Conv", lower_conv},
    {"MaxPool", lower_max_pool},
    {"AveragePool", lower_average_pool},
    {"GlobalAveragePool", lower_global_average_pool},
    {"GlobalMaxPool", lower_global_max_pool},
    {"Gemm", lower_gemm},
    {"MatMul", lower_matmul},
    {"Add", lower_add},
    {"Sub", lower_sub},
    {"Mul", lower_mul},
    {"Identity", lower_identity},
    {"Reshape", lower_reshape},
    {"Flatten", lower_flatten},
    {"Squeeze", lower_squeeze},
    {"Unsqueeze", lower_unsqueeze},
    {"Pad", lower_pad},
    {"Concat", lower_concat},
    {"Slice", lower_slice},
    {"Transpose", lower_transpose},
    {"Cast", lower_cast},
    {"ConstantOfShape", lower_constant_of_shape},
    {"Resize", lower_resize},
    // Standard quantized ONNX (lower_quantized.cpp).
    {"QuantizeLinear", lower_quantize_linear},
    {"DequantizeLinear", lower_dequantize_linear},
    {"QLinearConv", lower_qlinear_conv},
    {"QLinearMatMul", lower_qlinear_matmul},
    {"ConvInteger", lower_conv_integer},
    {"MatMulInteger", lower_matmul_integer},
    {"Relu", lower_relu_clip},
    {"Clip", lower_relu_clip},
    {"Sigmoid", lower_float_function},
    {"Tanh", lower_float_function},
    {"HardSigmoid", lower_float_function},
    {"HardSwish", lower_float_function},
    {"LeakyRelu", lower_float_function},
    {"ReduceMean", lower_reduce_mean},
    {"Shape", lower_shape},
    {"Gather", lower_gather},
    // Deeploy's integer transformer ops (QuantLib exports them in the default domain).
    {"iHardswish", lower_ihardswish},
    {"iGELU", lower_igelu},
    {"IntegerDiv", lower_integer_div},
    {"TrueIntegerDiv", lower_true_integer_div},
    {"IntegerMean", lower_reduce_mean},
    {"ReduceSum", lower_reduce_sum},
    // The Deeploy/QuantLib dialect's custom ops (default domain).
    {"iSoftmax", lower_i_softmax},
    {"ITAMax", lower_ita_max},
    {"ITAPartialMax", lower_ita_partial_max},
    {"iRMSNorm", lower_i_rms_norm},
    {"iLayerNorm", lower_i_layer_norm},
    {"iNoNorm", lower_i_no_norm},
};

// Ops of ONNX Runtime's 'com.microsoft' domain (quantized operators it adds).
constexpr op_entry microsoft_ops[] = {
    {"QLinearAdd", lower_qlinear_add},
    {"QGemm", lower_qgemm},
    {"QLinearConcat", lower_qlinear_concat},
    {"QLinearAveragePool", lower_qlinear_average_pool},
    {"QLinearGlobalAveragePool", lower_qlinear_global_average_pool},
    {"QLinearMul", lower_qlinear_mul},
    {"QLinearSigmoid", lower_qlinear_function},
    {"QLinearLeakyRelu", lower_qlinear_function},
};

// QuantLib exports RequantShift in the default domain, in 'PACTOps' or in 'ai.onnx.contrib'.
bool is_requant_shift_domain(const std::string& domain) {
  return domain.empty() || domain == "ai.onnx" || domain == "PACTOps" || domain == "ai.onnx.contrib";
}

}  // namespace

lowering_function find_lowering(const onnx::NodeProto& node) {
  if (node.op_type() == "RequantShift" && is_requant_shift_domain(node.domain())) return lower_requant_shift;
  if (node.domain() == "com.microsoft") {
    for (const auto& entry : microsoft_ops)
      if (node.op_type() == entry.op_type) return entry.lower;
    return nullptr;
  }
  if (!node.domain().empty() && node.domain() != "ai.onnx") return nullptr;
  for (const auto& entry : standard_ops)
    if (node.op_type() == entry.op_type) return entry.lower;
  return nullptr;
}

void reject_unsupported_ops(const onnx::GraphProto& graph, const std::unordered_set<std::string>& taken) {
  // Every unsupported operator at once, grouped by (domain, op) in order of first use, so a user
  // learns the whole gap in one run rather than one op per attempt.
  struct unsupported_op {
    std::string domain, op_type;
    std::vector<std::string> nodes;
  };
  std::vector<unsupported_op> found;
  std::size_t node_count = 0;
  for (int index = 0; index < graph.node_size(); ++index) {
    const onnx::NodeProto& node = graph.node(index);
    if (find_lowering(node) != nullptr) continue;
    if (node.output_size() > 0 && taken.count(node.output(0)) != 0) continue;
    const bool foreign_domain = !node.domain().empty() && node.domain() != "ai.onnx";
    const std::string domain = foreign_domain ? node.domain() : std::string();
    auto group = std::find_if(found.begin(), found.end(),
                              [&](const unsupported_op& u) { return u.domain == domain && u.op_type == node.op_type(); });
    if (group == found.end()) group = found.insert(found.end(), {domain, node.op_type(), {}});
    // An unnamed node is named by its first output, as the rest of the converter reports it.
    group->nodes.push_back(!node.name().empty()    ? node.name()
                           : node.output_size() > 0 ? node.output(0)
                                                    : fmt::format("#{}", index));
    ++node_count;
  }
  if (found.empty()) return;
  const auto reason = [](const unsupported_op& u) {
    return u.domain.empty() ? std::string("unsupported operator") : "unsupported operator (domain '" + u.domain + "')";
  };
  if (node_count == 1) throw conversion_error(found.front().nodes.front(), found.front().op_type, reason(found.front()));
  constexpr std::size_t names_listed = 4;  // per op: enough to find them, short enough to read
  std::string message =
      fmt::format("{} nodes use {} operator{} onnx2hpp does not support:", node_count, found.size(), found.size() == 1 ? "" : "s");
  for (const unsupported_op& u : found) {
    std::string names;
    for (std::size_t i = 0; i < u.nodes.size() && i < names_listed; ++i) names += (i ? ", '" : "'") + u.nodes[i] + "'";
    if (u.nodes.size() > names_listed) names += fmt::format(" and {} more", u.nodes.size() - names_listed);
    message += fmt::format("\n  {}: {} on {} node{} ({})", u.op_type, reason(u), u.nodes.size(),
                           u.nodes.size() == 1 ? "" : "s", names);
  }
  throw conversion_error(message);
}

// ---------------------------------------------------------------------------- context

namespace {

dims graph_input_shape(const onnx::ValueInfoProto& value) {
  const auto& type = value.type();
  if (!type.has_tensor_type()) fail("graph input '" + value.name() + "' is not a tensor");
  if (!type.tensor_type().has_shape())
    fail("graph input '" + value.name() + "' has no shape: onnx2hpp needs static shapes");
  dims shape;
  for (const auto& d : type.tensor_type().shape().dim()) {
    // 0 is a valid extent (an empty KV cache); the constructor limits who may read such an input.
    if (d.has_dim_param() || !d.has_dim_value() || d.dim_value() < 0) {
      const std::string what = d.has_dim_param() ? "'" + d.dim_param() + "'"
                                                 : (d.has_dim_value() ? std::to_string(d.dim_value()) : "unknown");
      fail("graph input '" + value.name() + "' has a dynamic or negative dimension (" + what +
           "): onnx2hpp needs static shapes (fix it with --batch N or --shape " + value.name() + "=D1,D2,...)");
    }
    shape.push_back(d.dim_value());
  }
  return shape;
}

void require_device_rank(const dims& shape, const std::string& what) {
  if (shape.size() > static_cast<std::size_t>(tessera::max_rank))
    fail(fmt::format("{} has rank {}, more than the {} dimensions Tessera supports", what, shape.size(),
                     tessera::max_rank));
}

}  // namespace

lowering_context::lowering_context(const onnx::ModelProto& model, const shape_map& inferred) : inferred_(inferred) {
  for (const auto& op : model.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx") opset_ = static_cast<int>(op.version());
  const auto& g = model.graph();
  onnx_graph_ = &g;
  for (const auto& init : g.initializer()) initializers_[init.name()] = &init;
  for (const auto& value : g.input()) {
    // An input that has an initializer is a constant here: IR < 4 lists every initializer as
    // an input, and Deeploy's exports do so for requant constants even in IR 8 models.
    if (initializers_.count(value.name()) != 0) {
      initialized_inputs_[value.name()] = true;
      continue;
    }
    dims shape = graph_input_shape(value);
    require_device_rank(shape, "graph input '" + value.name() + "'");
    if (std::find(shape.begin(), shape.end(), 0) != shape.end()) require_only_concat_reads(value.name(), shape);
    tensor t;
    t.onnx_name = value.name();
    t.shape = std::move(shape);
    t.onnx_elem_type = value.type().tensor_type().elem_type();
    element_types_[value.name()] = t.onnx_elem_type;
    const auto ref = static_cast<tensor_ref>(graph_.tensors.size());
    graph_.tensors.push_back(std::move(t));
    graph_.inputs.push_back(ref);
    tensors_by_name_[value.name()] = ref;
  }
}

const onnx::TensorProto* lowering_context::constant_named(const std::string& name) const {
  if (const auto it = constant_nodes_.find(name); it != constant_nodes_.end()) return &it->second;
  if (const auto it = initializers_.find(name); it != initializers_.end()) return it->second;
  return nullptr;
}

tensor_ref lowering_context::tensor_named(const std::string& onnx_name) const {
  const auto it = tensors_by_name_.find(onnx_name);
  return it == tensors_by_name_.end() ? -1 : it->second;
}

bool lowering_context::has_input(const onnx::NodeProto& n, int i) const {
  return i < n.input_size() && !n.input(i).empty();
}

bool lowering_context::is_constant_input(const onnx::NodeProto& n, int i) const {
  // Graph inputs that have an initializer were not registered as tensors (see the
  // constructor), so they are found as constants here.
  return has_input(n, i) && tensors_by_name_.count(n.input(i)) == 0 && constant_named(n.input(i)) != nullptr;
}

tensor_ref lowering_context::tensor_input(const onnx::NodeProto& n, int i, const node_context& where,
                                          const std::string& role) {
  if (!has_input(n, i)) where.fail("missing " + role);
  const tensor_ref t = tensor_named(n.input(i));
  if (t < 0) fail_not_a_tensor(n.input(i), where, role);
  return t;
}

std::string lowering_context::initialized_input_note(const std::string& name) const {
  if (initialized_inputs_.count(name) == 0) return "";
  return " (graph input '" + name + "' has an initializer, which makes it a constant)";
}

void lowering_context::fail_not_a_tensor(const std::string& name, const node_context& where,
                                         const std::string& role) const {
  if (constant_named(name) != nullptr)
    where.fail(role + " '" + name + "' is a constant" + initialized_input_note(name) +
               "; onnx2hpp supports it only as a run-time tensor");
  if (const quantized_constant* c = dequantized_constant(name))
    where.fail(role + " '" + name + "' is the DequantizeLinear of the constant '" + c->source + "'" +
               initialized_input_note(c->source) + "; onnx2hpp supports it only as a run-time tensor");
  where.fail(role + " '" + name + "' is not defined");
}

dims lowering_context::input_shape(const onnx::NodeProto& n, int i, const node_context& where) {
  if (!has_input(n, i)) where.fail(fmt::format("missing input {}", i));
  if (const tensor_ref t = tensor_named(n.input(i)); t >= 0) return graph_.tensors[static_cast<std::size_t>(t)].shape;
  if (const auto* c = constant_named(n.input(i))) return dims(c->dims().begin(), c->dims().end());
  fail_not_a_tensor(n.input(i), where, "input");
}

int_array lowering_context::constant_input(const onnx::NodeProto& n, int i, const node_context& where,
                                           const std::string& role) {
  if (!has_input(n, i)) where.fail("missing " + role);
  const onnx::TensorProto* c = is_constant_input(n, i) ? constant_named(n.input(i)) : nullptr;
  if (c == nullptr) where.fail(role + " '" + n.input(i) + "' must be a constant (initializer or Constant node)");
  return integer_tensor(*c, where, role + " '" + n.input(i) + "'");
}

tensor_ref lowering_context::define_output(const onnx::NodeProto& n, int i, dims shape, const node_context& where) {
  if (i >= n.output_size() || n.output(i).empty()) where.fail(fmt::format("missing output {}", i));
  const std::string& name = n.output(i);
  require_device_rank(shape, "node '" + where.name + "' (" + where.op + "): output '" + name + "'");
  for (auto d : shape)
    if (d <= 0) where.fail("output '" + name + "' would be empty, shape " + to_string(shape));
  if (const auto it = inferred_.find(name); it != inferred_.end() && it->second != shape) {
    where.fail("output '" + name + "' has shape " + to_string(shape) + " by onnx2hpp's rules but " +
               to_string(it->second) + " by ONNX shape inference");
  }
  tensor t;
  t.onnx_name = name;
  t.producer = n.op_type();
  t.shape = std::move(shape);
  const auto ref = static_cast<tensor_ref>(graph_.tensors.size());
  graph_.tensors.push_back(std::move(t));
  tensors_by_name_[name] = ref;
  return ref;
}

tensor_ref lowering_context::new_tensor(dims shape) {
  tensor t;
  t.shape = std::move(shape);
  graph_.tensors.push_back(std::move(t));
  return static_cast<tensor_ref>(graph_.tensors.size() - 1);
}

void lowering_context::add_node(const node_context& where, any_op operation, std::vector<tensor_ref> inputs,
                                std::vector<tensor_ref> outputs) {
  graph_.nodes.push_back(node{where.name, where.op, std::move(operation), std::move(inputs), std::move(outputs), {}});
}

void lowering_context::define_constant(const std::string& name, onnx::TensorProto value) {
  constant_nodes_[name] = std::move(value);
}

// ---------------------------------------------------------------------------- driver

void lowering_context::require_only_concat_reads(const std::string& name, const dims& shape) const {
  // An empty graph input (a KV cache of 0 positions, the prefill's start) holds no bytes and no
  // values: a Concat copies the other operands past it. Any other reader would compute on an
  // empty tensor (a row of length 0, a reduction over nothing), which no kernel is meant for.
  const std::string what = "graph input '" + name + "' is empty " + to_string(shape) + ": ";
  bool is_output = false;
  for (const auto& o : onnx_graph_->output()) is_output = is_output || o.name() == name;
  if (is_output) fail(what + "it is also a graph output; only a Concat may read an empty input");
  for (const onnx::NodeProto* reader : readers(name))
    if (reader->op_type() != "Concat")
      fail(what + "node '" + reader->name() + "' (" + reader->op_type() +
           ") reads it; only a Concat along the empty axis may read an empty input");
}

std::vector<const onnx::NodeProto*> lowering_context::readers(const std::string& name) const {
  std::vector<const onnx::NodeProto*> out;
  for (const auto& node : onnx_graph_->node())
    if (std::find(node.input().begin(), node.input().end(), name) != node.input().end()) out.push_back(&node);
  return out;
}

const onnx::TensorProto* lowering_context::constant_ahead(const std::string& name) const {
  if (const onnx::TensorProto* t = constant_named(name)) return t;
  for (const auto& node : onnx_graph_->node()) {
    if (node.op_type() != "Constant" || node.output_size() != 1 || node.output(0) != name) continue;
    for (const auto& a : node.attribute())
      if (a.name() == "value" && a.has_t()) return &a.t();
  }
  return nullptr;
}

bool lowering_context::is_float_graph_input(const std::string& name) const {
  const tensor_ref t = tensor_named(name);
  if (t < 0 || !graph_.is_graph_input(t)) return false;
  const int type = graph_.tensors[static_cast<std::size_t>(t)].onnx_elem_type;
  return type == onnx::TensorProto::FLOAT || type == onnx::TensorProto::FLOAT16 || type == onnx::TensorProto::DOUBLE ||
         type == onnx::TensorProto::BFLOAT16;
}

bool lowering_context::is_graph_output(const std::string& name) const {
  return std::any_of(onnx_graph_->output().begin(), onnx_graph_->output().end(),
                     [&](const onnx::ValueInfoProto& v) { return v.name() == name; });
}

namespace {

/// The tensor a graph output returns: `t`, or a copy of it when `t` is a graph input or already
/// an output (a float end taken off an input that is also the model's output): the network's
/// outputs are buffers of their own, written by a node.
tensor_ref output_buffer(lowering_context& cx, tensor_ref t, const std::string& onnx_name) {
  const auto& ir = cx.ir();
  const bool input = std::find(ir.inputs.begin(), ir.inputs.end(), t) != ir.inputs.end();
  const bool output = std::find(ir.outputs.begin(), ir.outputs.end(), t) != ir.outputs.end();
  if (!input && !output) return t;
  const tensor_ref copy = cx.new_tensor(ir.tensors[static_cast<std::size_t>(t)].shape);
  cx.ir().tensors[static_cast<std::size_t>(copy)].onnx_name = onnx_name;
  cx.ir().tensors[static_cast<std::size_t>(copy)].producer = "Identity";
  cx.add_node({onnx_name, "Identity"}, ops::reshape{}, {t}, {copy});
  return copy;
}

}  // namespace

graph lower_model(const onnx::ModelProto& model, const shape_map& inferred, const std::string& model_file,
                  const fake_float_ends& fake) {
  lowering_context context(model, inferred);
  context.ir().model_file = model_file;
  for (const auto& node : model.graph().node()) {
    const node_context where{node.name(), node.op_type()};
    if (node.output_size() > 0 && fake.taken.count(node.output(0)) != 0) {
      // A node of a fake-quantized end: the first one of an input's chain takes the end off.
      for (const auto& in : node.input())
        if (const fake_float_end* e = fake.input(in))
          take_float_input(context, {e->onnx_name, true, 0, e->scale, e->zero_point, e->type, e->arithmetic, e->ops,
                                     e->lo, e->hi},
                           e->integer_tensor);
      continue;
    }
    const lowering_function lower = find_lowering(node);
    if (lower == nullptr) where.fail("unsupported operator");  // reject_unsupported_ops ran first
    if (fold_shape_arithmetic(context, node, where)) continue;  // Shape -> ... -> Reshape plumbing
    bool reads_dequantized = false;
    for (const auto& in : node.input())
      reads_dequantized = reads_dequantized || context.dequantized(in) != nullptr;
    const bool quantized_op = node.op_type() == "QuantizeLinear" || node.domain() == "com.microsoft";
    if (reads_dequantized && !quantized_op && (node.domain().empty() || node.domain() == "ai.onnx"))
      lower_on_dequantized(context, node, where, lower);
    else
      lower(context, node, where);
  }
  for (const auto& output : model.graph().output()) {
    if (const fake_float_end* e = fake.output(output.name())) {
      const tensor_ref t = context.tensor_named(e->integer_tensor);
      if (t < 0) fail("graph output '" + output.name() + "': its integer tensor '" + e->integer_tensor + "' is not computed");
      context.ir().boundaries.push_back({output.name(), false, static_cast<int>(context.ir().outputs.size()), e->scale,
                                         e->zero_point, e->type, e->arithmetic, e->ops, 0, 0});
      context.ir().outputs.push_back(output_buffer(context, t, output.name()));
      continue;
    }
    if (const quantized_value* v = context.dequantized(output.name())) {
      // A float end: the network returns the integer tensor the DequantizeLinear reads, and
      // the header documents its scale and zero point (meta::output_quantization).
      const bool plain = (v->type == tessera::dtype::u8 || v->type == tessera::dtype::s8) && v->scale.size() == 1 &&
                         !v->function && !std::isfinite(v->lo) && !std::isfinite(v->hi);
      if (!plain)
        fail("graph output '" + output.name() +
             "' is a float tensor computed by a float op (not a DequantizeLinear of an 8-bit per-tensor quantized "
             "tensor): end the graph with QuantizeLinear (onnx2hpp emits integer networks)");
      context.ir().boundaries.push_back({output.name(), false, static_cast<int>(context.ir().outputs.size()),
                                         v->scale.front(), v->zero_point, v->type, tessera::float_arithmetic::linear, {}, 0, 0});
      context.ir().outputs.push_back(output_buffer(context, v->tensor, output.name()));
      continue;
    }
    const tensor_ref t = context.tensor_named(output.name());
    if (t < 0) fail("graph output '" + output.name() + "' is a constant or is not produced by any node");
    context.ir().outputs.push_back(output_buffer(context, t, output.name()));
  }
  if (context.ir().outputs.empty()) fail("the graph has no outputs");
  return context.take();
}

}  // namespace tessera::onnx2hpp
