#include "model_checker.hpp"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <string>

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
  bool moved = false;
  for (auto& node : *model.mutable_graph()->mutable_node()) {
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

}  // namespace

shape_map check_and_infer_shapes(const onnx::ModelProto& model) {
  reject_non_positive_strides(model.graph());
  onnx::ModelProto copy = model;
  hide_custom_ops(copy);
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
