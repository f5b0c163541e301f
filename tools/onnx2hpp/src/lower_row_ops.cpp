// The dialect's row operators (Transformer issue): iSoftmax, ITAMax, ITAPartialMax, iRMSNorm,
// iLayerNorm and iNoNorm, each over the last axis (docs/semantics.md). The lowering reads the
// constants as exact integers and proves here, once, that every intermediate of the kernels
// (kernels/tessera/kernels/reference/softmax.hpp, normalization.hpp) fits its integer type for
// any 8-bit input, so the device code needs no overflow handling.
#include <cstdint>
#include <limits>

#include <fmt/format.h>

#include "lower_ops.hpp"
#include "onnx_values.hpp"
#include "shape_math.hpp"

namespace tessera::onnx2hpp {
namespace {

/// Exact bounds checks: products of int32 constants and 8-bit values beyond 64 bits.
__extension__ typedef __int128 wide;

/// The largest |true value| of an 8-bit input (uint8 255; int8 -128); the kernels take 8-bit inputs only.
constexpr std::int64_t max_input_magnitude = 255;
/// The largest x - max(row) magnitude over an 8-bit row (int8 127 - (-128), uint8 255 - 0).
constexpr std::int64_t max_row_spread = 255;

std::int64_t levels_attribute(const onnx::NodeProto& n, const node_context& where) {
  const std::int64_t levels = integer_attribute(n, where, "n_levels");
  if (levels < 2 || levels > 65536) where.fail(fmt::format("n_levels = {} is outside [2, 65536]", levels));
  return levels;
}

/// The last axis of a row op's input (rank >= 1).
dims row_input(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  const dims x = cx.input_shape(n, 0, where);
  if (x.empty() || x.back() < 1) where.fail("the input needs a last axis of at least one element");
  return x;
}

void add_softmax(lowering_context& cx, const onnx::NodeProto& n, const node_context& where, ops::softmax op) {
  const dims x = row_input(cx, n, where);
  if (op.n_levels > 256) where.fail(fmt::format("n_levels = {} needs more than the uint8 output", op.n_levels));
  const tensor_ref input = cx.tensor_input(n, 0, where, "input");
  const tensor_ref output = cx.define_output(n, 0, x, where);
  cx.add_node(where, op, {input}, {output});
}

/// iSoftmax's exponential of xt = x - max (kernels' detail::i_softmax_exp), exactly, before
/// the 32-bit cast; the caller bounds the coefficients so that nothing overflows here.
wide i_softmax_exp(std::int64_t xt, const ops::softmax& p) {
  std::int64_t z = -(xt / p.log2);
  z = z < 0 ? 0 : (z > 31 ? 31 : z);
  const wide q = xt + z * p.log2 + p.coeff_b;
  return (wide{p.coeff_a} * q * q + p.coeff_c) >> z;
}

/// An int32 [rows][L] constant of a norm: leading 1s dropped, then expanded to the input's
/// trailing dims of its rank, so that tensor row r reads constant row r % rows.
int_array row_constant(int_array c, const dims& x, const node_context& where, const std::string& role) {
  while (c.shape.size() > 1 && c.shape.front() == 1) c.shape.erase(c.shape.begin());
  if (c.shape.size() > x.size()) where.fail(role + " " + to_string(c.shape) + " has a higher rank than the input");
  const dims suffix(x.end() - static_cast<std::ptrdiff_t>(c.shape.size()), x.end());
  dims joined;
  if (!broadcast_shapes(c.shape, suffix, joined) || joined != suffix)
    where.fail(role + " " + to_string(c.shape) + " does not broadcast to the input " + to_string(x));
  require_fits(c, tessera::dtype::s32, where, role);
  // A [1] weight over rows of 2^31 - 1 asked for 16 GB (fuzzer finding).
  if (element_count(suffix) > max_made_constant_values)
    where.fail(fmt::format("{} {} expanded to the input's rows {} would hold {} values, more than 2^20 (1 MiB of "
                           "constants)",
                           role, to_string(c.shape), to_string(suffix), element_count(suffix)));
  int_array out;
  out.values = expand_to(c, suffix);
  out.shape = {element_count(suffix) / x.back(), x.back()};
  return out;
}

std::int64_t max_magnitude(const int_array& a) {
  std::int64_t m = 0;
  for (auto v : a.values) m = std::max(m, v < 0 ? -v : v);
  return m;
}

void lower_norm(lowering_context& cx, const onnx::NodeProto& n, const node_context& where, ops::norm_kind kind) {
  const dims x = row_input(cx, n, where);
  ops::normalization op;
  op.kind = kind;
  op.shift = power_of_two_attribute(n, where, "D");
  const std::int64_t levels = levels_attribute(n, where);
  op.lo = -(levels / 2);
  op.hi = levels / 2 - 1;
  op.output = levels <= 256 ? tessera::dtype::s8 : tessera::dtype::s16;
  op.weight = row_constant(cx.constant_input(n, 1, where, "weight"), x, where, "weight");
  if (kind != ops::norm_kind::rms) op.bias = row_constant(cx.constant_input(n, 2, where, "bias"), x, where, "bias");
  if (kind == ops::norm_kind::no_norm) {
    op.mul = integer_attribute(n, where, "mul");
    if (op.mul < std::numeric_limits<std::int32_t>::min() || op.mul > std::numeric_limits<std::int32_t>::max())
      where.fail(fmt::format("mul = {} does not fit int32", op.mul));
    // ((x*w + b) * mul) in int64 for |x| <= 255.
    const wide term = wide{max_input_magnitude} * max_magnitude(op.weight) + max_magnitude(*op.bias);
    if (term * (op.mul < 0 ? -op.mul : op.mul) > std::numeric_limits<std::int64_t>::max())
      where.fail("(x*weight + bias) * mul can exceed 64 bits");
  }
  // The other intermediates fit by construction: |x - mean| <= 255 against an int32 weight,
  // and a row's sum of squares is at most L * 255^2.
  const tensor_ref input = cx.tensor_input(n, 0, where, "input");
  const tensor_ref output = cx.define_output(n, 0, x, where);
  cx.add_node(where, std::move(op), {input}, {output});
}

}  // namespace

void lower_i_softmax(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  ops::softmax op;
  op.kind = ops::softmax_kind::i_softmax;
  op.coeff_a = integer_attribute(n, where, "coeffA");
  op.coeff_b = integer_attribute(n, where, "coeffB");
  op.coeff_c = integer_attribute(n, where, "coeffC");
  op.log2 = integer_attribute(n, where, "log2");
  op.n_levels = levels_attribute(n, where);
  for (auto [name, v] : {std::pair{"coeffA", op.coeff_a}, {"coeffB", op.coeff_b}, {"coeffC", op.coeff_c}})
    if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max())
      where.fail(fmt::format("{} = {} does not fit int32", name, v));
  if (op.log2 < 1 || op.log2 > std::numeric_limits<std::int32_t>::max())
    where.fail(fmt::format("log2 = {} is outside [1, 2^31 - 1]", op.log2));
  // Each exponential a non-negative 32-bit value, the row maximum's at least 1 (a non-zero
  // sum), and a row's sum within 32 bits: checked on every x - max an 8-bit row can have.
  const std::int64_t length = row_input(cx, n, where).back();  // rank >= 1 checked first (fuzzer finding)
  wide largest = 0;
  for (std::int64_t xt = -max_row_spread; xt <= 0; ++xt) {
    const wide e = i_softmax_exp(xt, op);
    if (e < 0 || e > std::numeric_limits<std::uint32_t>::max())
      where.fail(fmt::format("the polynomial (coeffA, coeffB, coeffC, log2) = ({}, {}, {}, {}) leaves [0, 2^32) at "
                             "x - max = {}",
                             op.coeff_a, op.coeff_b, op.coeff_c, op.log2, xt));
    largest = std::max(largest, e);
  }
  if (i_softmax_exp(0, op) < 1) where.fail("the exponential of the row maximum is 0: the row sum can be 0");
  if (largest * length > std::numeric_limits<std::uint32_t>::max())
    where.fail(fmt::format("a row of {} exponentials up to {} can exceed the 32-bit sum", length,
                           static_cast<std::int64_t>(largest)));
  add_softmax(cx, n, where, op);
}

void lower_ita_max(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  ops::softmax op;
  op.kind = ops::softmax_kind::ita_max;
  op.n_levels = levels_attribute(n, where);
  if (row_input(cx, n, where).back() > (std::int64_t{1} << 23))
    where.fail("rows longer than 2^23 can exceed the 32-bit sum");
  add_softmax(cx, n, where, op);
}

void lower_ita_partial_max(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  ops::softmax op;
  op.kind = ops::softmax_kind::ita_partial_max;
  op.n_levels = levels_attribute(n, where);
  op.group_width = integer_attribute(n, where, "group_width");
  if (op.group_width < 1 || op.group_width > std::numeric_limits<std::int32_t>::max())
    where.fail(fmt::format("group_width = {} must be at least 1", op.group_width));
  if (row_input(cx, n, where).back() > (std::int64_t{1} << 23))
    where.fail("rows longer than 2^23 can exceed the 32-bit sum");
  add_softmax(cx, n, where, op);
}

void lower_i_rms_norm(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  lower_norm(cx, n, where, ops::norm_kind::rms);
}
void lower_i_layer_norm(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  lower_norm(cx, n, where, ops::norm_kind::layer);
}
void lower_i_no_norm(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  lower_norm(cx, n, where, ops::norm_kind::no_norm);
}

}  // namespace tessera::onnx2hpp
