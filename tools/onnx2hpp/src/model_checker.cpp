#include "model_checker.hpp"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "diagnostics.hpp"

namespace tessera::onnx2hpp {
namespace {

constexpr const char* private_domain = "tessera.onnx2hpp.custom";

/// One line of an ONNX exception text (they carry "==> Context:" blocks on further lines).
std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

int opset_of(const onnx::ModelProto& model, const std::string& domain) {
  for (const auto& op : model.opset_import()) {
    const bool same = op.domain() == domain || (domain.empty() && op.domain() == "ai.onnx") ||
                      (domain == "ai.onnx" && op.domain().empty());
    if (same) return static_cast<int>(op.version());
  }
  return -1;
}

/// Moves every node that has no registered schema into the private domain.
void hide_custom_ops(onnx::ModelProto& model) {
  // "ai.onnx" is another name of the default domain, which the registry and the checker know
  // only as "": renamed, its nodes are checked like any standard node rather than hidden.
  for (auto& import : *model.mutable_opset_import())
    if (import.domain() == "ai.onnx") import.set_domain("");
  bool moved = false;
  for (auto& node : *model.mutable_graph()->mutable_node()) {
    if (node.domain() == "ai.onnx") node.set_domain("");
    const int version = opset_of(model, node.domain());
    const bool known =
        version >= 0 && onnx::OpSchemaRegistry::Schema(node.op_type(), version, node.domain()) != nullptr;
    if (!known) {
      node.set_domain(private_domain);
      moved = true;
    }
  }
  if (moved) {
    auto* import = model.add_opset_import();
    import->set_domain(private_domain);
    import->set_version(1);
  }
}

/// The static shape of a value, if it has one.
bool static_shape(const onnx::ValueInfoProto& value, dims& out) {
  if (!value.type().has_tensor_type() || !value.type().tensor_type().has_shape()) return false;
  out.clear();
  for (const auto& d : value.type().tensor_type().shape().dim()) {
    if (!d.has_dim_value() || d.dim_value() <= 0) return false;
    out.push_back(d.dim_value());
  }
  return true;
}

/// ONNX 1.12's checker insists that graph inputs and outputs declare a shape, which the spec
/// and later checkers do not; exporters often leave outputs shapeless. In the checked copy a
/// shapeless output is dropped (onnx2hpp computes every shape itself, and lowering checks
/// that each output is defined) and a shapeless input gets an empty shape (lowering then
/// reports that it needs a static one).
void tolerate_shapeless_graph_values(onnx::GraphProto& g) {
  const auto shapeless = [](const onnx::ValueInfoProto& v) {
    return v.type().has_tensor_type() && !v.type().tensor_type().has_shape();
  };
  for (auto& input : *g.mutable_input())
    if (shapeless(input)) input.mutable_type()->mutable_tensor_type()->mutable_shape();
  auto* outputs = g.mutable_output();
  for (int i = outputs->size(); i-- > 0;)
    if (shapeless(outputs->Get(i))) outputs->DeleteSubrange(i, 1);
}

/// ONNX 1.12's conv/pool shape inference divides by every stride (a stride of 0 is a SIGFPE
/// inside libonnx, found by the fuzzer), so strides and dilations below 1 are refused before it
/// runs, on any node (only supported ops get this far).
void reject_non_positive_strides(const onnx::GraphProto& g) {
  for (const auto& node : g.node()) {
    for (const auto& a : node.attribute()) {
      if (a.name() != "strides" && a.name() != "dilations") continue;
      for (const auto v : a.ints())
        if (v < 1)
          throw conversion_error(node.name(), node.op_type(),
                                 "attribute '" + a.name() + "' holds " + std::to_string(v) + " (must be at least 1)");
    }
  }
}

/// ONNX 1.12's shape inference of Gemm-1 and Gemm-6 (opsets before 7, with the `broadcast`
/// attribute) indexes A's and B's dimensions without checking their rank: a scalar A is a SEGV
/// inside libonnx (structure-aware fuzzer finding). No exporter of integerized models writes
/// such an old opset, so a Gemm under it is refused before inference.
void reject_gemm_before_opset_7(const onnx::ModelProto& model) {
  const int version = opset_of(model, "");
  if (version >= 7 || version < 0) return;
  for (const auto& node : model.graph().node())
    if (node.domain().empty() && node.op_type() == "Gemm")
      throw conversion_error(node.name(), node.op_type(),
                             "Gemm of ONNX opset " + std::to_string(version) +
                                 " (before 7) is not supported; export the model with opset 7 or later");
}

/// ONNX 1.12's conv shape inference, when `kernel_shape` is absent, takes the kernel rank from
/// the weights and indexes the input-rank-sized dilations with it: weights of a higher rank than
/// the input read past the end (a SEGV inside libonnx, fuzzer finding). In the copy that is
/// inferred, every Conv/ConvInteger/QLinearConv without kernel_shape gets it from its constant
/// weights (an initializer, a Constant or a DequantizeLinear of one), which libonnx then checks
/// against the input rank; one whose weights are not such a constant is kept out of inference
/// (private domain), since lowering rejects it anyway.
void pin_conv_kernel_shapes(onnx::ModelProto& model) {
  onnx::GraphProto& g = *model.mutable_graph();
  std::unordered_map<std::string, std::vector<std::int64_t>> constant_dims;
  for (const auto& t : g.initializer()) constant_dims[t.name()].assign(t.dims().begin(), t.dims().end());
  for (const auto& node : g.node()) {  // topologically sorted: a producer comes first
    if (node.output_size() < 1) continue;
    if (node.op_type() == "Constant") {
      for (const auto& a : node.attribute())
        if (a.name() == "value" && a.has_t())
          constant_dims[node.output(0)].assign(a.t().dims().begin(), a.t().dims().end());
    } else if (node.op_type() == "DequantizeLinear" && node.input_size() > 0) {
      const auto it = constant_dims.find(node.input(0));
      if (it != constant_dims.end()) constant_dims[node.output(0)] = it->second;
    }
  }
  bool hidden = false;
  for (auto& node : *g.mutable_node()) {
    if (!node.domain().empty()) continue;
    const std::string& op = node.op_type();
    const int w = op == "QLinearConv" ? 3 : op == "Conv" || op == "ConvInteger" ? 1 : -1;
    if (w < 0 || std::any_of(node.attribute().begin(), node.attribute().end(),
                             [](const onnx::AttributeProto& a) { return a.name() == "kernel_shape"; }))
      continue;
    const auto it = node.input_size() > w ? constant_dims.find(node.input(w)) : constant_dims.end();
    if (it == constant_dims.end()) {
      node.set_domain(private_domain);
      hidden = true;
      continue;
    }
    onnx::AttributeProto* kernel = node.add_attribute();
    kernel->set_name("kernel_shape");
    kernel->set_type(onnx::AttributeProto::INTS);
    for (std::size_t i = 2; i < it->second.size(); ++i) kernel->add_ints(it->second[i]);
  }
  const bool imported = std::any_of(model.opset_import().begin(), model.opset_import().end(),
                                    [](const onnx::OperatorSetIdProto& o) { return o.domain() == private_domain; });
  if (hidden && !imported) {
    auto* import = model.add_opset_import();
    import->set_domain(private_domain);
    import->set_version(1);
  }
}

/// The newest opset of the default ONNX domain that ONNX 1.12 defines (17).
int newest_known_opset() {
  return onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map().at(onnx::ONNX_DOMAIN).second;
}

/// A standard op in a model whose opset predates it (DequantizeLinear under opset 9): the
/// checker never sees it, since hide_custom_ops takes an op without a schema for a dialect op.
/// Ops that no ONNX opset defines (RequantShift in the default domain) are left alone.
void reject_ops_newer_than_the_opset(const onnx::ModelProto& model) {
  const int version = opset_of(model, "");
  for (const auto& node : model.graph().node()) {
    if (!node.domain().empty() && node.domain() != "ai.onnx") continue;
    if (onnx::OpSchemaRegistry::Schema(node.op_type(), onnx::ONNX_DOMAIN) == nullptr) continue;
    if (version >= 1 && onnx::OpSchemaRegistry::Schema(node.op_type(), version, onnx::ONNX_DOMAIN) != nullptr)
      continue;
    int first = 1;
    while (onnx::OpSchemaRegistry::Schema(node.op_type(), first, onnx::ONNX_DOMAIN) == nullptr) ++first;
    const std::string imported =
        version < 0 ? "imports no opset of the default ONNX domain" : "imports ONNX opset " + std::to_string(version);
    throw conversion_error(node.name(), node.op_type(),
                           "the model " + imported + ", but " + node.op_type() + " first appears in opset " +
                               std::to_string(first) + " (export the model with opset " + std::to_string(first) +
                               " or later)");
  }
}

/// Checks every standard node against its ONNX 1.12 schema (what the checker's check_node
/// does), so that a rejected node is named. A model of a newer opset than 1.12 knows is read
/// with 1.12's newest definitions; where a later opset added an attribute, an input or an
/// element type, the node does not verify and the message says why.
void verify_nodes(const onnx::ModelProto& model) {
  for (const auto& node : model.graph().node()) {
    const int version = opset_of(model, node.domain());
    const onnx::OpSchema* schema =
        version < 0 ? nullptr : onnx::OpSchemaRegistry::Schema(node.op_type(), version, node.domain());
    if (schema == nullptr) continue;
    try {
      schema->Verify(node);
    } catch (const std::exception& e) {
      std::string reason = "the ONNX checker rejects the model: " + one_line(e.what());
      const bool default_domain = node.domain().empty() || node.domain() == "ai.onnx";
      if (default_domain && version > newest_known_opset())
        reason += " (the model imports ONNX opset " + std::to_string(version) + "; onnx2hpp's ONNX 1.12 knows opsets " +
                  "up to " + std::to_string(newest_known_opset()) + " and reads " + node.op_type() +
                  " as defined there: export the model with opset " + std::to_string(newest_known_opset()) + ")";
      throw conversion_error(node.name(), node.op_type(), reason);
    }
  }
}

}  // namespace

shape_map check_and_infer_shapes(const onnx::ModelProto& model) {
  reject_non_positive_strides(model.graph());
  reject_ops_newer_than_the_opset(model);
  reject_gemm_before_opset_7(model);
  onnx::ModelProto copy = model;
  hide_custom_ops(copy);
  verify_nodes(copy);
  // Debian's ONNX 1.12 knows IR versions up to 8; later versions add element types (float8,
  // int4, ...) that integerized models do not use, so the copy is checked as IR 8.
  if (copy.ir_version() > onnx::Version::IR_VERSION) copy.set_ir_version(onnx::Version::IR_VERSION);
  {
    onnx::ModelProto checked = copy;
    tolerate_shapeless_graph_values(*checked.mutable_graph());
    try {
      onnx::checker::check_model(checked);
    } catch (const std::exception& e) {
      fail("the ONNX checker rejects the model: " + one_line(e.what()));
    }
  }
  // Shapes only: the dialect's declared element types are loose (int32 outputs of float
  // inputs, float tensors that hold integers), which type inference would reject.
  copy.mutable_graph()->clear_value_info();
  pin_conv_kernel_shapes(copy);
  for (auto& output : *copy.mutable_graph()->mutable_output())
    output.mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::UNDEFINED);
  try {
    onnx::shape_inference::InferShapes(copy);
  } catch (const std::exception& e) {
    fail("ONNX shape inference fails on the model: " + one_line(e.what()));
  }
  shape_map shapes;
  dims d;
  const auto& g = copy.graph();
  for (const auto* list : {&g.value_info(), &g.output()}) {
    for (const auto& value : *list)
      if (static_shape(value, d)) shapes[value.name()] = d;
  }
  return shapes;
}

}  // namespace tessera::onnx2hpp
