// Lowering: each ONNX node becomes one or more IR ops (ir.hpp).
//
// The lowering of each op (lower_*.cpp) validates its attributes, converts its constants to
// exact integers, and computes its output shapes itself; every computed shape is
// cross-checked against ONNX shape inference (model_checker.hpp). Element types are assigned
// afterwards (types.hpp).
#pragma once

#include <functional>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include <onnx/onnx_pb.h>

#include "diagnostics.hpp"
#include "fake_quantization.hpp"
#include "ir.hpp"
#include "model_checker.hpp"

namespace tessera::onnx2hpp {

/// A float tensor of a QDQ graph that is an integer tensor in disguise: its real value is
/// `scale * (tensor - zero_point)`, then clamped to [lo, hi] (a pending Relu/Clip, applied by
/// the QuantizeLinear that reads it). `tensor` is 8-bit (the input of a DequantizeLinear, or a
/// data-movement op of one) or an int32 accumulator of an integer Conv/Gemm/MatMul/Add.
struct quantized_value {
  tensor_ref tensor = -1;
  std::vector<double> scale;  ///< one value, or one per index of `axis`
  int axis = -1;              ///< logical axis the scale varies along; -1 per tensor
  std::int64_t zero_point = 0;
  tessera::dtype type = tessera::dtype::s8;  ///< of `tensor`: s8/u8, or s32 for an accumulator
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  /// A pending elementwise float function of the clamped real value (a QDQ Sigmoid, Tanh, ...):
  /// the QuantizeLinear that reads it becomes a lookup table over the 256 values of `tensor`.
  /// Empty for none; `function_op` names it for messages.
  std::function<double(double)> function;
  std::string function_op;
  /// The accumulator of an average pool or mean: the QuantizeLinear that reads it rounds half
  /// to even (ONNX's rounding of the float mean), every other requantization half up.
  bool mean = false;
  /// For the exact sum of a window of a constant `mean_count` cells of an input of scale
  /// `mean_input_scale` (`scale` is their ratio): the QuantizeLinear divides exactly when the
  /// scales allow it (emit_requant). 0: not such a sum.
  std::int64_t mean_count = 0;
  double mean_input_scale = 0;
};

/// A DequantizeLinear of a constant (weights, biases): integers with their scale and zero point.
struct quantized_constant {
  int_array values;
  std::vector<double> scale;             ///< one value, or one per index of `axis`
  std::vector<std::int64_t> zero_point;  ///< one value, or one per index of `axis`
  int axis = -1;
  std::string source;  ///< the ONNX name of the integer constant it dequantizes
};

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

  /// The constant behind input `i`, or nullptr when it is a run-time tensor or missing.
  const onnx::TensorProto* constant_proto(const onnx::NodeProto& n, int i) const {
    return is_constant_input(n, i) ? constant_named(n.input(i)) : nullptr;
  }

  // QDQ bookkeeping (lower_quantized.cpp): float tensors that stand for integer ones.
  const quantized_value* dequantized(const std::string& name) const {
    const auto it = dequantized_.find(name);
    return it == dequantized_.end() ? nullptr : &it->second;
  }
  const quantized_constant* dequantized_constant(const std::string& name) const {
    const auto it = dequantized_constants_.find(name);
    return it == dequantized_constants_.end() ? nullptr : &it->second;
  }
  /// Records the float tensor `name` as `value` (readers of `name` then read value.tensor).
  void set_dequantized(const std::string& name, quantized_value value) {
    tensors_by_name_[name] = value.tensor;
    dequantized_[name] = std::move(value);
  }
  void set_dequantized_constant(const std::string& name, quantized_constant value) {
    dequantized_constants_[name] = std::move(value);
  }
  /// The ONNX element type of a run-time tensor where the lowering knows it (graph inputs, the
  /// outputs of QuantizeLinear and Cast), else 0 (TensorProto::UNDEFINED).
  int element_type(const std::string& name) const {
    const auto it = element_types_.find(name);
    return it == element_types_.end() ? 0 : it->second;
  }
  void set_element_type(const std::string& name, int onnx_elem_type) { element_types_[name] = onnx_elem_type; }
  /// Makes the ONNX name `name` refer to an existing tensor (a QuantizeLinear that changes nothing).
  void alias(const std::string& name, tensor_ref t) { tensors_by_name_[name] = t; }
  /// A TrueIntegerDiv folded into the RequantShift that reads `name` (Deeploy's rule): the
  /// integer factor floor(Delta*eta / (y*eta + eps)), or nullptr.
  const std::int64_t* folded_division(const std::string& name) const {
    const auto it = folded_divisions_.find(name);
    return it == folded_divisions_.end() ? nullptr : &it->second;
  }
  void set_folded_division(const std::string& name, std::int64_t factor) { folded_divisions_[name] = factor; }
  /// The shape ONNX shape inference gives a tensor, if any.
  const dims* inferred_shape(const std::string& name) const {
    const auto it = inferred_.find(name);
    return it == inferred_.end() ? nullptr : &it->second;
  }

  /// The nodes that read the tensor `name` (in graph order), and whether a graph output is it:
  /// a lookahead for a QDQ op whose integer form depends on the QuantizeLinear after it.
  std::vector<const onnx::NodeProto*> readers(const std::string& name) const;
  /// Fails unless every reader of the empty graph input `name` is a Concat (whose other inputs
  /// must agree off the axis, and whose output define_output refuses if it is empty too).
  void require_only_concat_reads(const std::string& name, const dims& shape) const;
  bool is_graph_output(const std::string& name) const;

  /// A constant the lookahead reads before the lowering reaches it: an initializer, or the
  /// value of the Constant node that defines `name` anywhere in the graph; nullptr otherwise.
  const onnx::TensorProto* constant_ahead(const std::string& name) const;
  /// Whether `name` is a graph input declared with a float type (a float end of the model).
  bool is_float_graph_input(const std::string& name) const;

  graph& ir() { return graph_; }
  graph take() { return std::move(graph_); }
  tensor_ref tensor_named(const std::string& onnx_name) const;

 private:
  const onnx::TensorProto* constant_named(const std::string& name) const;
  /// Fails for an input that is no run-time tensor, saying what it is instead: a dequantized
  /// constant (naming its source, and a graph input that an initializer made constant) or
  /// nothing defined at all.
  [[noreturn]] void fail_not_a_tensor(const std::string& name, const node_context& where,
                                      const std::string& role) const;
  /// Why `name` is a constant, when a graph input of that name has an initializer.
  std::string initialized_input_note(const std::string& name) const;

  graph graph_;
  const onnx::GraphProto* onnx_graph_ = nullptr;
  int opset_ = 0;
  const shape_map& inferred_;
  std::unordered_map<std::string, const onnx::TensorProto*> initializers_;
  std::unordered_map<std::string, bool> initialized_inputs_;  ///< graph inputs that have an initializer
  std::unordered_map<std::string, onnx::TensorProto> constant_nodes_;
  std::unordered_map<std::string, tensor_ref> tensors_by_name_;
  std::unordered_map<std::string, int> element_types_;
  std::unordered_map<std::string, quantized_value> dequantized_;
  std::unordered_map<std::string, quantized_constant> dequantized_constants_;
  std::unordered_map<std::string, std::int64_t> folded_divisions_;
};

using lowering_function = void (*)(lowering_context&, const onnx::NodeProto&, const node_context&);

/// The lowering of a node's op, or nullptr when onnx2hpp does not support it (the op type
/// and its domain decide: RequantShift is accepted in '', 'PACTOps' and 'ai.onnx.contrib').
lowering_function find_lowering(const onnx::NodeProto& node);

/// Fails on the first node (in file order) whose op is not supported, naming it: run first,
/// so that an unsupported model is reported as such rather than by a later check. The nodes of
/// fake-quantized float ends (`taken`) are not the network's.
void reject_unsupported_ops(const onnx::GraphProto& graph, const std::unordered_set<std::string>& taken = {});

/// Lowers a checked, topologically sorted model. Graph input types are left for types.hpp.
/// The fake-quantized float ends (`fake`) become float ends of the network, as a QuantizeLinear
/// of a float graph input and a DequantizeLinear to a float graph output do.
graph lower_model(const onnx::ModelProto& model, const shape_map& inferred, const std::string& model_file,
                  const fake_float_ends& fake = {});

}  // namespace tessera::onnx2hpp
