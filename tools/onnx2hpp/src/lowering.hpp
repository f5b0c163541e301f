// Lowering: each ONNX node becomes one or more IR ops (ir.hpp).
//
// The lowering of each op (lower_*.cpp) validates its attributes, converts its constants to
// exact integers, and computes its output shapes itself; every computed shape is
// cross-checked against ONNX shape inference (model_checker.hpp). Element types are assigned
// afterwards (types.hpp).
#pragma once

#include <string>
#include <unordered_map>

#include <onnx/onnx_pb.h>

#include "diagnostics.hpp"
#include "ir.hpp"
#include "model_checker.hpp"

namespace tessera::onnx2hpp {

/// What the lowering of one op sees: the node's inputs (run-time tensors or constants) and
/// the graph being built.
class lowering_context {
 public:
  lowering_context(const onnx::ModelProto& model, const shape_map& inferred);

  /// Version of the default ONNX domain the model imports.
  int opset() const { return opset_; }

  bool has_input(const onnx::NodeProto& n, int i) const;
  bool is_constant_input(const onnx::NodeProto& n, int i) const;
  /// A run-time (non-constant) input; fails if it is missing or constant.
  tensor_ref tensor_input(const onnx::NodeProto& n, int i, const node_context& where, const std::string& role);
  /// Shape of an input, constant or not.
  dims input_shape(const onnx::NodeProto& n, int i, const node_context& where);
  /// A constant input as exact integers; fails if it is missing or computed at run time.
  int_array constant_input(const onnx::NodeProto& n, int i, const node_context& where, const std::string& role);

  /// Declares output `i` of the ONNX node with the shape the lowering computed (checked
  /// against shape inference).
  tensor_ref define_output(const onnx::NodeProto& n, int i, dims shape, const node_context& where);
  /// A tensor the converter introduces (no ONNX name).
  tensor_ref new_tensor(dims shape);
  void add_node(const node_context& where, any_op operation, std::vector<tensor_ref> inputs,
                std::vector<tensor_ref> outputs);

  /// Records the tensor of a Constant node as a constant.
  void define_constant(const std::string& name, onnx::TensorProto value);

  graph& ir() { return graph_; }
  graph take() { return std::move(graph_); }
  tensor_ref tensor_named(const std::string& onnx_name) const;

 private:
  const onnx::TensorProto* constant_named(const std::string& name) const;

  graph graph_;
  int opset_ = 0;
  const shape_map& inferred_;
  std::unordered_map<std::string, const onnx::TensorProto*> initializers_;
  std::unordered_map<std::string, onnx::TensorProto> constant_nodes_;
  std::unordered_map<std::string, tensor_ref> tensors_by_name_;
};

using lowering_function = void (*)(lowering_context&, const onnx::NodeProto&, const node_context&);

/// The lowering of a node's op, or nullptr when onnx2hpp does not support it (the op type
/// and its domain decide: RequantShift is accepted in '', 'PACTOps' and 'ai.onnx.contrib').
lowering_function find_lowering(const onnx::NodeProto& node);

/// Fails on the first node (in file order) whose op is not supported, naming it: run first,
/// so that an unsupported model is reported as such rather than by a later check.
void reject_unsupported_ops(const onnx::GraphProto& graph);

/// Lowers a checked, topologically sorted model. Graph input types are left for types.hpp.
graph lower_model(const onnx::ModelProto& model, const shape_map& inferred, const std::string& model_file);

}  // namespace tessera::onnx2hpp
