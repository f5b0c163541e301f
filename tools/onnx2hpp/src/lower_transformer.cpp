// Deeploy's integer transformer-era ops (QuantLib's integerized modules, default domain):
// iHardswish, iGELU, IntegerDiv, TrueIntegerDiv (folded into the RequantShift after it),
// IntegerMean/ReduceMean and ReduceSum of integer tensors. The rules are in docs/semantics.md.
#include <algorithm>

#include <fmt/format.h>

#include "lower_ops.hpp"
#include "onnx_values.hpp"
#include "shape_math.hpp"

namespace tessera::onnx2hpp {
namespace {

/// An integer attribute that the library keeps in an int32.
std::int64_t int32_attribute(const onnx::NodeProto& n, const node_context& where, const std::string& name) {
  if (!has_attribute(n, name)) where.fail("missing attribute '" + name + "'");
  const std::int64_t v = integer_attribute(n, where, name);
  if (v < INT32_MIN || v > INT32_MAX) where.fail(fmt::format("attribute '{}' = {} does not fit int32", name, v));
  return v;
}

/// One run-time input, one output of the same shape.
template <class Op>
void lower_elementwise_unary(lowering_context& cx, const onnx::NodeProto& n, const node_context& where, Op op) {
  const dims x = cx.input_shape(n, 0, where);
  const tensor_ref input = cx.tensor_input(n, 0, where, "input");
  const tensor_ref output = cx.define_output(n, 0, x, where);
  cx.add_node(where, std::move(op), {input}, {output});
}

void lower_reduce(lowering_context& cx, const onnx::NodeProto& n, const node_context& where, bool mean) {
  const dims x = cx.input_shape(n, 0, where);
  const tensor_ref input = cx.tensor_input(n, 0, where, "input");
  dims axes = ints_attribute(n, "axes", {});
  if (cx.has_input(n, 1)) axes = cx.constant_input(n, 1, where, "axes").values;  // opset 13 (Sum), 18 (Mean)
  const bool keep = int_attribute(n, "keepdims", 1) != 0;
  if (axes.empty()) {
    if (int_attribute(n, "noop_with_empty_axes", 0) != 0) where.fail("noop_with_empty_axes is not supported");
    for (std::size_t a = 0; a < x.size(); ++a) axes.push_back(static_cast<std::int64_t>(a));
  }
  ops::reduce op;
  op.mean = mean;
  op.keepdims = keep;
  op.axes = normalized_axes(axes, x.size(), where);
  std::sort(op.axes.begin(), op.axes.end());
  dims y;
  for (std::size_t a = 0; a < x.size(); ++a) {
    const bool reduced = std::find(op.axes.begin(), op.axes.end(), static_cast<int>(a)) != op.axes.end();
    if (!reduced) y.push_back(x[a]);
    else if (keep) y.push_back(1);
  }
  if (y.empty()) where.fail("a reduction over every axis without keepdims (a scalar) is not supported");
  const tensor_ref output = cx.define_output(n, 0, y, where);
  cx.add_node(where, std::move(op), {input}, {output});
}

}  // namespace

void lower_ihardswish(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  ops::hardswish op{int32_attribute(n, where, "three"), int32_attribute(n, where, "six"),
                    int32_attribute(n, where, "one_over_six")};
  if (op.six < 0 || op.one_over_six < 0) where.fail("six and one_over_six must not be negative");
  lower_elementwise_unary(cx, n, where, op);
}

void lower_igelu(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  ops::gelu op{int32_attribute(n, where, "b"), int32_attribute(n, where, "one")};
  if (op.b >= 0) where.fail(fmt::format("attribute 'b' = {} must be negative", op.b));
  if (op.one < 0) where.fail(fmt::format("attribute 'one' = {} must not be negative", op.one));
  if (op.b * op.b > INT32_MAX) where.fail(fmt::format("attribute 'b' = {}: b*b does not fit int32", op.b));
  lower_elementwise_unary(cx, n, where, op);
}

void lower_integer_div(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  const dims a = cx.input_shape(n, 0, where);
  const dims b = cx.input_shape(n, 1, where);
  dims y;
  if (!broadcast_shapes(a, b, y)) where.fail("operands " + to_string(a) + " and " + to_string(b) + " do not broadcast");
  const tensor_ref ta = cx.tensor_input(n, 0, where, "numerator");
  const tensor_ref tb = cx.tensor_input(n, 1, where, "denominator");
  ops::integer_div op{int32_attribute(n, where, "Delta"), int32_attribute(n, where, "eps"),
                      int32_attribute(n, where, "eta")};
  const tensor_ref output = cx.define_output(n, 0, y, where);
  cx.add_node(where, op, {ta, tb}, {output});
}

void lower_true_integer_div(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  // Deeploy has no kernel for it: it folds it into the RequantShift that reads it, with the
  // integer factor floor(Delta*eta / (y*eta + eps)) (lower_requant_shift applies it). QuantLib's
  // own rule, round(x*Delta*eta / (y*eta + eps)), disagrees with the corpus golden data.
  const std::int64_t y = int32_attribute(n, where, "y"), delta = int32_attribute(n, where, "Delta");
  const std::int64_t eps = int32_attribute(n, where, "eps"), eta = int32_attribute(n, where, "eta");
  const std::int64_t den = y * eta + eps;
  if (den <= 0) where.fail(fmt::format("y*eta + eps = {} must be positive", den));
  if (n.output_size() < 1 || n.output(0).empty()) where.fail("missing output");
  const auto readers = cx.readers(n.output(0));
  const bool folds = readers.size() == 1 && readers[0]->op_type() == "RequantShift" && !cx.is_graph_output(n.output(0));
  if (!folds)
    where.fail("supported only when its one reader is a RequantShift (Deeploy folds it into the RequantShift's mul)");
  const dims x = cx.input_shape(n, 0, where);
  const tensor_ref input = cx.tensor_input(n, 0, where, "input");
  (void)x;
  cx.alias(n.output(0), input);
  cx.set_folded_division(n.output(0), delta * eta / den);
}

void lower_reduce_mean(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  lower_reduce(cx, n, where, true);
}
void lower_reduce_sum(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  lower_reduce(cx, n, where, false);
}

}  // namespace tessera::onnx2hpp
