#include "legacy_attributes.hpp"

#include <string>
#include <unordered_set>

namespace tessera::onnx2hpp {
namespace {

int default_opset(const onnx::ModelProto& model) {
  for (const auto& op : model.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx") return static_cast<int>(op.version());
  return 0;
}

/// A fresh initializer name derived from `base`.
std::string unused_name(const onnx::GraphProto& g, const std::string& base) {
  std::unordered_set<std::string> used;
  for (const auto& i : g.initializer()) used.insert(i.name());
  for (const auto& v : g.input()) used.insert(v.name());
  for (const auto& n : g.node())
    for (const auto& o : n.output()) used.insert(o);
  std::string name = base;
  for (int k = 2; used.count(name) != 0; ++k) name = base + "_" + std::to_string(k);
  return name;
}

/// Moves attribute `attribute` of `node` to input `index` as an initializer (int64 for INTS,
/// float for FLOAT); missing lower inputs become "" (omitted). False if it is absent.
bool attribute_to_input(onnx::GraphProto& g, onnx::NodeProto& node, const std::string& attribute, int index) {
  auto* attributes = node.mutable_attribute();
  for (int a = 0; a < attributes->size(); ++a) {
    const onnx::AttributeProto& attr = attributes->Get(a);
    if (attr.name() != attribute) continue;
    onnx::TensorProto* t = g.add_initializer();
    // A node may have neither a name nor an output here (the checker runs later): fuzzer finding.
    const std::string& base =
        !node.name().empty() ? node.name() : node.output_size() > 0 ? node.output(0) : node.op_type();
    t->set_name(unused_name(g, base + "_" + attribute));
    if (attr.type() == onnx::AttributeProto::FLOAT) {
      t->set_data_type(onnx::TensorProto::FLOAT);
      t->add_float_data(attr.f());
    } else {
      t->set_data_type(onnx::TensorProto::INT64);
      t->add_dims(attr.ints_size());
      for (auto v : attr.ints()) t->add_int64_data(v);
    }
    while (node.input_size() <= index) node.add_input("");
    node.set_input(index, t->name());
    attributes->DeleteSubrange(a, 1);
    return true;
  }
  return false;
}

}  // namespace

void upgrade_legacy_attributes(onnx::ModelProto& model) {
  const int opset = default_opset(model);
  onnx::GraphProto& g = *model.mutable_graph();
  for (auto& node : *g.mutable_node()) {
    if (!node.domain().empty() && node.domain() != "ai.onnx") continue;
    const std::string& op = node.op_type();
    if (op == "Pad" && opset >= 11 && node.input_size() == 1) {
      if (attribute_to_input(g, node, "pads", 1)) attribute_to_input(g, node, "value", 2);
    } else if (op == "Slice" && opset >= 10 && node.input_size() == 1) {
      if (attribute_to_input(g, node, "starts", 1) && attribute_to_input(g, node, "ends", 2))
        attribute_to_input(g, node, "axes", 3);
    } else if ((op == "Squeeze" || op == "Unsqueeze") && opset >= 13 && node.input_size() == 1) {
      attribute_to_input(g, node, "axes", 1);
    }
  }
}

}  // namespace tessera::onnx2hpp
