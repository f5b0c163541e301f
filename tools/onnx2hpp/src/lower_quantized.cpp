// Standard quantized ONNX: the QOperator ops (QLinearConv, QLinearMatMul, ConvInteger,
// MatMulInteger, com.microsoft QLinearAdd/QLinearMul/QLinearAveragePool/QLinearGlobalAveragePool/
// QLinearSigmoid/QLinearLeakyRelu) and QDQ graphs (DequantizeLinear -> float op ->
// QuantizeLinear), lowered onto the same integer IR ops as the Deeploy dialect: conv/gemm/
// matmul/add with zero points folded into their constants (a mul takes them as input offsets),
// and a requant_shift that the fusion pass folds into them. Elementwise float functions
// (Sigmoid, ...) become a lookup table computed from their float definition.
//
// In a QDQ graph a DequantizeLinear emits nothing: its float output is recorded as a
// `quantized_value` (lowering.hpp) and every reader works on the integers. A QOperator op is
// the same thing written as one node: QLinearConv = QuantizeLinear(Conv(DequantizeLinear(x),
// DequantizeLinear(w), bias)), and it is lowered by the same helpers.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "lower_ops.hpp"
#include "onnx_values.hpp"
#include "quantization.hpp"
#include "shape_math.hpp"

namespace tessera::onnx2hpp {
namespace {

using make_output = std::function<tensor_ref(const dims&)>;

// ---------------------------------------------------------------------------- parameters

std::vector<double> scale_input(lowering_context& cx, const onnx::NodeProto& n, int i, const node_context& where,
                                const std::string& role) {
  const onnx::TensorProto* t = cx.constant_proto(n, i);
  if (t == nullptr) where.fail(role + " must be a constant (initializer or Constant node)");
  std::vector<double> s = float_values(*t, where, role + " '" + n.input(i) + "'");
  if (s.empty()) where.fail(role + " is empty");
  for (double v : s)
    if (!std::isfinite(v) || v <= 0) where.fail(fmt::format("{} {} is not a positive finite number", role, v));
  return s;
}

/// A zero point input (all 0 when absent); `type` gets its element type (uint8 when absent,
/// as ONNX's default).
std::vector<std::int64_t> zero_point_input(lowering_context& cx, const onnx::NodeProto& n, int i,
                                           const node_context& where, const std::string& role, tessera::dtype* type) {
  if (!cx.has_input(n, i)) {
    if (type != nullptr) *type = tessera::dtype::u8;
    return {0};
  }
  const onnx::TensorProto* t = cx.constant_proto(n, i);
  if (t == nullptr) where.fail(role + " must be a constant (initializer or Constant node)");
  const tessera::dtype d = zero_point_type(t->data_type(), where, role);
  if (type != nullptr) *type = d;
  int_array zp = integer_tensor(*t, where, role + " '" + n.input(i) + "'");
  if (zp.values.empty()) where.fail(role + " is empty");
  return zp.values;
}

double per_tensor(const std::vector<double>& v, const node_context& where, const std::string& role) {
  for (double x : v)
    if (x != v.front()) where.fail(role + " must be per tensor (one value) here");
  return v.front();
}
std::int64_t per_tensor(const std::vector<std::int64_t>& v, const node_context& where, const std::string& role) {
  for (auto x : v)
    if (x != v.front()) where.fail(role + " must be per tensor (one value) here");
  return v.front();
}

/// The element type of a run-time tensor from the zero point that describes it, or from the
/// graph input's ONNX type when there is none.
tessera::dtype activation_type(lowering_context& cx, tensor_ref t, const onnx::NodeProto& n, int zp_index,
                               const node_context& where) {
  if (cx.has_input(n, zp_index)) {
    tessera::dtype d{};
    zero_point_input(cx, n, zp_index, where, "zero point", &d);
    return d;
  }
  const tensor& x = cx.ir().tensors[static_cast<std::size_t>(t)];
  if (x.onnx_elem_type == onnx::TensorProto::INT8) return tessera::dtype::s8;
  return tessera::dtype::u8;
}

/// A run-time quantized input given as (x, scale, zero point) inputs of a QOperator node.
quantized_value qoperator_input(lowering_context& cx, const onnx::NodeProto& n, int x, int scale, int zp,
                                const node_context& where, const std::string& role) {
  quantized_value v;
  if (cx.is_constant_input(n, x)) where.fail(role + " must be a run-time tensor (a constant one is not supported)");
  v.tensor = cx.tensor_input(n, x, where, role);
  v.scale = {per_tensor(scale_input(cx, n, scale, where, role + " scale"), where, role + " scale")};
  v.zero_point = per_tensor(zero_point_input(cx, n, zp, where, role + " zero point", nullptr), where,
                            role + " zero point");
  v.type = activation_type(cx, v.tensor, n, zp, where);
  return v;
}

/// The integers of a constant quantized tensor (weights, a DequantizeLinear's x), which ONNX
/// types int8, uint8 or int32. A float tensor holding integers is refused: nothing bounds its
/// values before sums of them are formed (a fuzzer-style finding: int64 overflow, UBSan).
int_array quantized_integers(lowering_context& cx, const onnx::NodeProto& n, int i, const node_context& where,
                             const std::string& role) {
  const onnx::TensorProto* t = cx.constant_proto(n, i);
  if (t == nullptr) where.fail(role + " must be a constant (initializer or Constant node)");
  zero_point_type(t->data_type(), where, role + " '" + n.input(i) + "'");
  return cx.constant_input(n, i, where, role);
}

/// A constant quantized input given as (w, scale, zero point) inputs of a QOperator node;
/// per-axis scale and zero point vary along `axis`.
quantized_constant qoperator_constant(lowering_context& cx, const onnx::NodeProto& n, int w, int scale, int zp,
                                      int axis, const node_context& where, const std::string& role) {
  quantized_constant c;
  if (!cx.is_constant_input(n, w)) where.fail(role + " must be a constant (initializer or Constant node)");
  c.values = quantized_integers(cx, n, w, where, role);
  c.scale = scale_input(cx, n, scale, where, role + " scale");
  c.zero_point = zero_point_input(cx, n, zp, where, role + " zero point", nullptr);
  c.axis = axis;
  return c;
}

/// The value of a dequantized input of a float op in a QDQ graph.
const quantized_value& dequantized_input(lowering_context& cx, const onnx::NodeProto& n, int i,
                                         const node_context& where, const std::string& role) {
  if (!cx.has_input(n, i)) where.fail("missing " + role);
  const quantized_value* v = cx.dequantized(n.input(i));
  if (v == nullptr)
    where.fail(role + " '" + n.input(i) + "' is a float tensor that does not come from DequantizeLinear");
  return *v;
}

const quantized_constant& dequantized_constant_input(lowering_context& cx, const onnx::NodeProto& n, int i,
                                                     const node_context& where, const std::string& role) {
  if (!cx.has_input(n, i)) where.fail("missing " + role);
  const quantized_constant* c = cx.dequantized_constant(n.input(i));
  if (c == nullptr)
    where.fail(role + " '" + n.input(i) + "' must be a DequantizeLinear of a constant (quantized weights)");
  return *c;
}

/// Scale or zero point entry `i` of a per-tensor (1 value) or per-axis list. Callers check the
/// list's length against the channel count first (require_axis, require_per_channel); the check
/// here only turns a missed one into an error rather than a read past the end (fuzzer finding).
template <class T>
T entry(const std::vector<T>& v, std::int64_t i, const node_context& where) {
  if (v.size() == 1) return v.front();
  if (i < 0 || static_cast<std::size_t>(i) >= v.size())
    where.fail(fmt::format("a per-channel scale or zero point has {} values, channel {} has none", v.size(), i));
  return v[static_cast<std::size_t>(i)];
}

/// Checks that per-channel parameters have one value or `extent` values.
template <class T>
void require_per_channel(const std::vector<T>& v, std::int64_t extent, const node_context& where,
                         const std::string& role) {
  if (v.size() != 1 && static_cast<std::int64_t>(v.size()) != extent)
    where.fail(fmt::format("{} have {} scales or zero points for {} channels", role, v.size(), extent));
}

/// Checks that a constant's per-axis parameters run along `axis` with `extent` entries.
void require_axis(const quantized_constant& c, int axis, std::int64_t extent, const node_context& where,
                  const std::string& role) {
  const bool per_axis = c.scale.size() > 1 || c.zero_point.size() > 1;
  if (!per_axis) return;
  if (c.axis != axis)
    where.fail(fmt::format("{} are quantized per axis {}; onnx2hpp supports only axis {} (per output channel)", role,
                           c.axis, axis));
  require_per_channel(c.scale, extent, where, role);
  require_per_channel(c.zero_point, extent, where, role);
}

// ---------------------------------------------------------------------------- requantization

/// The exact requantization of a mean (docs/semantics.md, "Rounding of means"): when the sum of
/// `count` cells has scale s_x / count and s_x / s_y = 2^k (equal scales, or a power-of-two
/// ratio), M = 2^(k-e) / odd for count = odd * 2^e, so mul / (odd * 2^shift) is M exactly:
/// mul = 2^(k-e) and shift 0, or mul 1 and shift e - k. Empty when the scales do not allow it,
/// the count is a power of two (mul / 2^shift is exact already) or add leaves int32.
std::optional<integer_multipliers> exact_mean_multiplier(const quantized_value& v, double scale_out,
                                                         std::int64_t zero_out, std::int64_t& divisor) {
  if (!v.mean || v.mean_count <= 1 || v.mean_input_scale <= 0) return std::nullopt;
  std::int64_t odd = v.mean_count;
  int e = 0;
  while (odd % 2 == 0) odd /= 2, ++e;
  if (odd == 1 || odd > (std::int64_t{1} << 20)) return std::nullopt;
  // Both scales come from float32 values: their double quotient is a power of two exactly when
  // the real ratio is one (a ratio off by one part in 2^48 is not rounded onto 2^k).
  int exponent = 0;
  const double mantissa = std::frexp(v.mean_input_scale / scale_out, &exponent);
  if (mantissa != 0.5) return std::nullopt;
  const int j = exponent - 1 - e;  // M * odd = 2^j
  if (j > 30 || j < -30) return std::nullopt;
  integer_multipliers r;
  r.shift = j >= 0 ? 0 : -j;
  const std::int64_t mul = j >= 0 ? std::int64_t{1} << j : 1;
  const std::int64_t add = zero_out * odd * (std::int64_t{1} << r.shift) - v.zero_point * mul;
  if (add < std::numeric_limits<std::int32_t>::min() || add > std::numeric_limits<std::int32_t>::max())
    return std::nullopt;
  r.mul = {mul};
  r.add = {add};
  divisor = odd;
  return r;
}

/// A requant_shift from `v` into `output`: y = saturate(round(real(v) / s_y) + z_y), with the
/// pending clamp of `v` (Relu/Clip) applied on the quantized bounds.
void emit_requant(lowering_context& cx, const node_context& where, const quantized_value& v, double scale_out,
                  std::int64_t zero_out, tessera::dtype type, tensor_ref output) {
  std::int64_t divisor = 1;
  const std::optional<integer_multipliers> exact = exact_mean_multiplier(v, scale_out, zero_out, divisor);
  const integer_multipliers im = exact ? *exact : integer_requant(v.scale, v.zero_point, scale_out, zero_out, where);
  const dims& shape = cx.ir().tensors[static_cast<std::size_t>(output)].shape;
  requant rq;
  rq.shift = im.shift;
  rq.divisor = divisor;
  rq.type = type;
  rq.lo = tessera::min_of(type);
  rq.hi = tessera::max_of(type);
  if (std::isfinite(v.lo)) rq.lo = std::max(rq.lo, quantize_real(v.lo, scale_out, zero_out));
  if (std::isfinite(v.hi)) rq.hi = std::min(rq.hi, quantize_real(v.hi, scale_out, zero_out));
  if (rq.lo > rq.hi) rq.hi = rq.lo;  // a Clip that leaves one value
  dims table(shape.size(), 1);
  if (im.mul.size() > 1) table[static_cast<std::size_t>(v.axis)] = static_cast<std::int64_t>(im.mul.size());
  rq.mul = int_array{table, im.mul};
  rq.add = int_array{table, im.add};
  rq.source = requant_source{v.scale, v.zero_point, scale_out, zero_out};
  if (v.mean) {
    rq.rounding = tessera::rounding::half_even;
    rq.zero_point = zero_out;
  }
  cx.add_node(where, ops::requant_shift{std::move(rq)}, {v.tensor}, {output});
}

bool is_identity(const quantized_value& v, double scale_out, std::int64_t zero_out, tessera::dtype type) {
  return v.scale.size() == 1 && v.scale.front() == scale_out && v.zero_point == zero_out && v.type == type &&
         !std::isfinite(v.lo) && !std::isfinite(v.hi) && !v.function;
}

/// A pending float function (QDQ Sigmoid, ...) is applied only by a QuantizeLinear.
void require_no_function(const node_context& where, const quantized_value& v, const std::string& role) {
  if (v.function)
    where.fail(role + " is the float output of " + v.function_op +
               ": quantize it (QuantizeLinear, then DequantizeLinear) before this op reads it");
}

/// The lookup table of `v`'s pending function for an output (s_y, zy) of `type`: entry k is
/// QuantizeLinear(f(clamp(s_x * (q - zx), lo, hi))) for q = min(v.type) + k, computed in double
/// precision like the ONNX float reference, so the table is that reference on every input.
ops::lookup_table function_table(const node_context& where, const quantized_value& v, double scale_out,
                                 std::int64_t zero_out, tessera::dtype type) {
  if (v.type != tessera::dtype::s8 && v.type != tessera::dtype::u8)
    where.fail(v.function_op + " needs an 8-bit quantized input, not " + c_type_name(v.type));
  ops::lookup_table op;
  op.input = v.type;
  op.output = type;
  const double scale = per_tensor(v.scale, where, "input scale");
  for (std::int64_t q = tessera::min_of(v.type); q <= tessera::max_of(v.type); ++q) {
    const double x = std::min(std::max(scale * static_cast<double>(q - v.zero_point), v.lo), v.hi);
    const std::int64_t y = quantize_real(v.function(x), scale_out, zero_out);
    op.table.push_back(std::clamp(y, tessera::min_of(type), tessera::max_of(type)));
  }
  return op;
}

/// The per-tensor quantization a QOperator node gives its output: the scale at input
/// `scale_index`, the zero point (whose element type is the output's) right after it.
struct output_quantization {
  double scale = 1;
  std::int64_t zero_point = 0;
  tessera::dtype type{};
};
output_quantization qoperator_output(lowering_context& cx, const onnx::NodeProto& n, int scale_index,
                                     const node_context& where, const std::string& scale_name,
                                     const std::string& zero_point_name) {
  output_quantization q;
  q.scale = per_tensor(scale_input(cx, n, scale_index, where, scale_name), where, scale_name);
  q.zero_point =
      per_tensor(zero_point_input(cx, n, scale_index + 1, where, zero_point_name, &q.type), where, zero_point_name);
  return q;
}

/// QuantizeLinear of `v` as output `index` of `n`: a requant_shift, or nothing when it
/// changes nothing (DequantizeLinear -> data movement -> QuantizeLinear with equal parameters).
void quantize_to_output(lowering_context& cx, const onnx::NodeProto& n, int index, const node_context& where,
                        const quantized_value& v, double scale_out, std::int64_t zero_out, tessera::dtype type) {
  if (type != tessera::dtype::s8 && type != tessera::dtype::u8)
    where.fail("the output zero point must be int8 or uint8, not " + c_type_name(type));
  if (is_identity(v, scale_out, zero_out, type)) {
    if (index >= n.output_size() || n.output(index).empty()) where.fail("missing output");
    cx.alias(n.output(index), v.tensor);
    return;
  }
  const dims shape = cx.ir().tensors[static_cast<std::size_t>(v.tensor)].shape;
  const tensor_ref output = cx.define_output(n, index, shape, where);
  if (v.function) {
    cx.add_node(where, function_table(where, v, scale_out, zero_out, type), {v.tensor}, {output});
    return;
  }
  emit_requant(cx, where, v, scale_out, zero_out, type, output);
}

/// `v` with its pending clamp applied (an 8-bit tensor in its own quantization), so that an
/// integer op can read it.
quantized_value materialized(lowering_context& cx, const node_context& where, const quantized_value& v) {
  if (!std::isfinite(v.lo) && !std::isfinite(v.hi)) return v;
  if (v.type == tessera::dtype::s32)
    where.fail("a Relu/Clip of an accumulator must be followed by QuantizeLinear");
  const dims shape = cx.ir().tensors[static_cast<std::size_t>(v.tensor)].shape;
  quantized_value out = v;
  out.tensor = cx.new_tensor(shape);
  out.lo = -std::numeric_limits<double>::infinity();
  out.hi = std::numeric_limits<double>::infinity();
  emit_requant(cx, {where.name + "_clamp", where.op}, v, per_tensor(v.scale, where, "input scale"), v.zero_point,
               v.type, out.tensor);
  return out;
}

/// An 8-bit, per-tensor activation an integer op can read.
quantized_value activation(lowering_context& cx, const node_context& where, const quantized_value& v,
                           const std::string& role) {
  require_no_function(where, v, role);
  if (v.type == tessera::dtype::s32)
    where.fail(role + " is an int32 accumulator: insert QuantizeLinear/DequantizeLinear before this op");
  per_tensor(v.scale, where, role + " scale");
  return materialized(cx, where, v);
}

// ---------------------------------------------------------------------------- integer ops

/// The stored value a conv over `x` with `window`'s padding reads there: the zero point zx,
/// which stands for the real value 0 that ONNX pads with (0 when the window does not pad; the
/// conv node keeps the default then).
std::int32_t padding_value(const quantized_value& x, const window2d& window) {
  return window.pads() ? static_cast<std::int32_t>(x.zero_point) : 0;
}

/// (x - zx) conv (w - zw) + bias as an int32 accumulator: weights stored as w - zw (int8, or
/// int16 when they no longer fit), -zx * sum(w - zw) folded into the bias, and, when the conv
/// pads, padding that reads zx (the kernels pad in place). `bias` is in
/// accumulator units. Returns the accumulator with scale s_x * s_w[f] per channel.
quantized_value integer_conv(lowering_context& cx, const onnx::NodeProto& n, const node_context& where,
                             const quantized_value& x_value, const quantized_constant& w,
                             const std::optional<std::vector<std::int64_t>>& bias, const make_output& output) {
  const quantized_value x = activation(cx, where, x_value, "input");
  const dims xs = cx.ir().tensors[static_cast<std::size_t>(x.tensor)].shape;
  if (xs.size() != 3 && xs.size() != 4)
    where.fail("input must be a 1D (N, C, W) or 2D (N, C, H, W) feature map, got " + to_string(xs));
  const std::size_t spatial = xs.size() - 2;
  if (w.values.shape.size() != xs.size())
    where.fail("weights " + to_string(w.values.shape) + " do not match the input rank");
  const std::int64_t channels = xs[1], filters = w.values.shape[0];
  if (element_count(w.values.shape) == 0) where.fail("weights " + to_string(w.values.shape) + " are empty");
  require_axis(w, 0, filters, where, "weights");

  ops::conv op;
  op.groups = int_attribute(n, "group", 1);
  if (op.groups < 1 || channels % op.groups != 0 || filters % op.groups != 0)
    where.fail(fmt::format("group = {} does not divide the {} input and {} output channels", op.groups, channels,
                           filters));
  if (w.values.shape[1] != channels / op.groups)
    where.fail(fmt::format("weights have {} input channels per group, the input gives {}", w.values.shape[1],
                           channels / op.groups));
  op.window = read_window(n, where, spatial, dims(w.values.shape.begin() + 2, w.values.shape.end()));
  for (std::size_t i = 0; i < spatial; ++i)
    if (op.window.kernel[2 - spatial + i] != w.values.shape[2 + i])
      where.fail("kernel_shape does not match the weights " + to_string(w.values.shape));

  // w - zw per filter, and the bias with -zx * sum(w - zw) folded in.
  const std::int64_t per_filter = element_count(w.values.shape) / filters;
  std::vector<std::int64_t> shifted(w.values.values.size());
  std::vector<std::int64_t> b(static_cast<std::size_t>(filters), 0);
  for (std::int64_t f = 0; f < filters; ++f) {
    std::int64_t sum = 0;
    for (std::int64_t k = 0; k < per_filter; ++k) {
      const auto i = static_cast<std::size_t>(f * per_filter + k);
      shifted[i] = w.values.values[i] - entry(w.zero_point, f, where);
      sum += shifted[i];
    }
    b[static_cast<std::size_t>(f)] = (bias ? (*bias)[static_cast<std::size_t>(f)] : 0) - x.zero_point * sum;
  }
  int_array weights{w.values.shape, std::move(shifted)};
  require_fits(weights, tessera::dtype::s16, where, "weights minus their zero point");
  const dims w4 = spatial == 1 ? dims{w.values.shape[0], w.values.shape[1], 1, w.values.shape[2]} : w.values.shape;
  op.weights.shape = {w4[0], w4[2], w4[3], w4[1]};
  op.weights.values = transpose_values(weights.values, w4, {0, 2, 3, 1});
  op.bias = int_array{{filters}, std::move(b)};
  require_fits(*op.bias, tessera::dtype::s32, where, "bias with the input zero point folded in");

  const dims y = window_output(xs, filters, op.window, where);
  op.pad_value = padding_value(x, op.window);
  const tensor_ref out = output(y);
  cx.add_node(where, std::move(op), {x.tensor}, {out});

  quantized_value acc;
  acc.tensor = out;
  acc.type = tessera::dtype::s32;
  acc.axis = 1;
  for (std::int64_t f = 0; f < filters; ++f) acc.scale.push_back(x.scale.front() * entry(w.scale, f, where));
  if (w.scale.size() == 1) {
    acc.scale.resize(1);
    acc.axis = -1;
  }
  return acc;
}

/// (a - za) @ (b - zb) (+ bias) with a constant B, as a gemm with weights [N][K] = b - zb and
/// -za * sum_k(b - zb) folded into the bias. `b` is (K, N), or (N, K) when `transposed`.
quantized_value integer_gemm(lowering_context& cx, const node_context& where, const quantized_value& a_value,
                             const quantized_constant& b, bool transposed,
                             const std::optional<std::vector<std::int64_t>>& bias, const make_output& output) {
  const quantized_value a = activation(cx, where, a_value, "input A");
  const dims as = cx.ir().tensors[static_cast<std::size_t>(a.tensor)].shape;
  dims bs = b.values.shape;
  while (bs.size() > 2 && bs.front() == 1) bs.erase(bs.begin());
  if (bs.size() != 2) where.fail("a constant B must be a matrix, got " + to_string(b.values.shape));
  if (as.empty()) where.fail("input A must have rank >= 1");
  const std::int64_t k = transposed ? bs[1] : bs[0];
  const std::int64_t nn = transposed ? bs[0] : bs[1];
  if (as.back() != k)
    where.fail(fmt::format("A {} and B {} do not agree on K", to_string(as), to_string(b.values.shape)));
  if (k <= 0 || nn <= 0) where.fail("weights B " + to_string(b.values.shape) + " are empty");
  // The axis of B that indexes the output columns, in B's own rank.
  const int n_axis = static_cast<int>(b.values.shape.size()) - (transposed ? 2 : 1);
  require_axis(b, n_axis, nn, where, "weights B");

  const int_array b2{bs, b.values.values};
  const int_array w = transposed ? b2 : int_array{{nn, k}, transpose_values(b2.values, bs, {1, 0})};
  ops::gemm op;
  op.n = nn;
  op.k = k;
  op.weights.shape = {nn, k};
  op.weights.values.resize(w.values.size());
  std::vector<std::int64_t> bsum(static_cast<std::size_t>(nn), 0);
  for (std::int64_t j = 0; j < nn; ++j) {
    std::int64_t sum = 0;
    for (std::int64_t i = 0; i < k; ++i) {
      const auto at = static_cast<std::size_t>(j * k + i);
      op.weights.values[at] = w.values[at] - entry(b.zero_point, j, where);
      sum += op.weights.values[at];
    }
    bsum[static_cast<std::size_t>(j)] = (bias ? (*bias)[static_cast<std::size_t>(j)] : 0) - a.zero_point * sum;
  }
  require_fits(op.weights, tessera::dtype::s16, where, "weights minus their zero point");
  // No bias when it is all zero, so that a following bias Add (QDQ MatMul + Add) folds into it.
  if (std::any_of(bsum.begin(), bsum.end(), [](std::int64_t v) { return v != 0; })) {
    op.bias = int_array{{nn}, std::move(bsum)};
    require_fits(*op.bias, tessera::dtype::s32, where, "bias with the input zero point folded in");
  }
  dims y(as.begin(), as.end() - 1);
  y.push_back(nn);
  const tensor_ref out = output(y);
  cx.add_node(where, std::move(op), {a.tensor}, {out});

  quantized_value acc;
  acc.tensor = out;
  acc.type = tessera::dtype::s32;
  if (b.scale.size() > 1) {
    acc.axis = static_cast<int>(y.size()) - 1;
    for (std::int64_t j = 0; j < nn; ++j) acc.scale.push_back(a.scale.front() * entry(b.scale, j, where));
  } else {
    acc.scale = {a.scale.front() * b.scale.front()};
  }
  return acc;
}

/// A @ B over two run-time tensors: only without zero points (the cross terms would need
/// run-time row and column sums).
quantized_value integer_matmul(lowering_context& cx, const onnx::NodeProto& n, const node_context& where,
                               const quantized_value& a_value, const quantized_value& b_value,
                               const make_output& output) {
  const quantized_value a = activation(cx, where, a_value, "input A");
  const quantized_value b = activation(cx, where, b_value, "input B");
  if (a.zero_point != 0 || b.zero_point != 0)
    where.fail(fmt::format("a product of two run-time tensors with zero points ({} and {}) is not supported "
                           "(make B a constant, or quantize both symmetrically)",
                           a.zero_point, b.zero_point));
  (void)n;
  const dims as = cx.ir().tensors[static_cast<std::size_t>(a.tensor)].shape;
  const dims bs = cx.ir().tensors[static_cast<std::size_t>(b.tensor)].shape;
  if (as.size() < 2 || bs.size() < 2) where.fail("MatMul of two run-time tensors needs matrices (rank >= 2)");
  if (as.back() != bs[bs.size() - 2])
    where.fail(fmt::format("A {} and B {} do not agree on K", to_string(as), to_string(bs)));
  dims y;
  if (!broadcast_shapes(dims(as.begin(), as.end() - 2), dims(bs.begin(), bs.end() - 2), y))
    where.fail("the batch dimensions of " + to_string(as) + " and " + to_string(bs) + " do not broadcast");
  y.push_back(as[as.size() - 2]);
  y.push_back(bs.back());
  const tensor_ref out = output(y);
  cx.add_node(where, ops::matmul{}, {a.tensor, b.tensor}, {out});
  quantized_value acc;
  acc.tensor = out;
  acc.type = tessera::dtype::s32;
  acc.scale = {a.scale.front() * b.scale.front()};
  return acc;
}

/// real(a) + real(b) as an accumulator. Equal scales: a + b with zero point za + zb.
/// Different scales: both are first requantized to int16 on a common finer scale
/// s_c = max(s_a, s_b) / 128 (|q - z| <= 255 then fits), then added.
quantized_value integer_add(lowering_context& cx, const node_context& where, const quantized_value& a_value,
                            const quantized_value& b_value, const make_output& output) {
  quantized_value a = activation(cx, where, a_value, "input A");
  quantized_value b = activation(cx, where, b_value, "input B");
  const dims as = cx.ir().tensors[static_cast<std::size_t>(a.tensor)].shape;
  const dims bs = cx.ir().tensors[static_cast<std::size_t>(b.tensor)].shape;
  dims y;
  if (!broadcast_shapes(as, bs, y))
    where.fail("operands " + to_string(as) + " and " + to_string(bs) + " do not broadcast");
  quantized_value acc;
  acc.type = tessera::dtype::s32;
  if (a.scale.front() == b.scale.front()) {
    acc.scale = a.scale;
    acc.zero_point = a.zero_point + b.zero_point;
  } else {
    const double common = std::max(a.scale.front(), b.scale.front()) / 128.0;
    for (quantized_value* v : {&a, &b}) {
      const tensor_ref rescaled = cx.new_tensor(cx.ir().tensors[static_cast<std::size_t>(v->tensor)].shape);
      emit_requant(cx, {where.name + (v == &a ? "_rescale_a" : "_rescale_b"), where.op}, *v, common, 0,
                   tessera::dtype::s16, rescaled);
      v->tensor = rescaled;
    }
    acc.scale = {common};
  }
  const tensor_ref out = output(y);
  cx.add_node(where, ops::binary{}, {a.tensor, b.tensor}, {out});
  acc.tensor = out;
  return acc;
}

/// real(a) * real(b) as an accumulator: (a - za) * (b - zb) with scale s_a * s_b, exact in
/// int32 (|a - za|, |b - zb| <= 255). The zero points become the kernel's input offsets; a
/// constant b (`b_constant`, already b - zb) is the op's constant operand.
quantized_value integer_mul(lowering_context& cx, const node_context& where, const quantized_value& a_value,
                            const quantized_value* b_value, const quantized_constant* b_constant,
                            const make_output& output) {
  const quantized_value a = activation(cx, where, a_value, "input A");
  const dims as = cx.ir().tensors[static_cast<std::size_t>(a.tensor)].shape;
  ops::binary op;
  op.kind = ops::binary_kind::mul;
  op.a_offset = -a.zero_point;
  std::vector<tensor_ref> inputs{a.tensor};
  dims bs;
  double b_scale = 0;
  if (b_value != nullptr) {
    const quantized_value b = activation(cx, where, *b_value, "input B");
    inputs.push_back(b.tensor);
    bs = cx.ir().tensors[static_cast<std::size_t>(b.tensor)].shape;
    op.b_offset = -b.zero_point;
    b_scale = b.scale.front();
  } else {
    bs = b_constant->values.shape;
    b_scale = per_tensor(b_constant->scale, where, "constant operand scale");
    const std::int64_t zb = per_tensor(b_constant->zero_point, where, "constant operand zero point");
    int_array c = b_constant->values;
    for (auto& v : c.values) v -= zb;
    require_fits(c, tessera::dtype::s16, where, "constant operand minus its zero point");
    op.constant_b = std::move(c);
  }
  dims y;
  if (!broadcast_shapes(as, bs, y))
    where.fail("operands " + to_string(as) + " and " + to_string(bs) + " do not broadcast");
  if (op.constant_b) op.constant_b->shape = with_rank(op.constant_b->shape, y.size());
  const tensor_ref out = output(y);
  cx.add_node(where, std::move(op), std::move(inputs), {out});
  quantized_value acc;
  acc.tensor = out;
  acc.type = tessera::dtype::s32;
  acc.scale = {a.scale.front() * b_scale};
  return acc;
}

/// Average pooling of a quantized map. When every window counts the same number of cells (no
/// padding, or count_include_pad) it is a depthwise conv with weights 1 and bias -zx * count:
/// an exact sum with scale s_x / count, rounded once by the QuantizeLinear. Otherwise (padding
/// without count_include_pad) it is Tessera's average pool of the input rescaled to int16.
/// Either result is marked `mean`: the QuantizeLinear that reads it rounds half to even, as
/// ONNX rounds the float mean (docs/semantics.md, "Rounding of means").
quantized_value integer_average(lowering_context& cx, const onnx::NodeProto& n, const node_context& where,
                                const quantized_value& x_value, bool global, const make_output& output) {
  const quantized_value x = activation(cx, where, x_value, "input");
  const dims xs = cx.ir().tensors[static_cast<std::size_t>(x.tensor)].shape;
  if (xs.size() != 3 && xs.size() != 4)
    where.fail("input must be a 1D (N, C, W) or 2D (N, C, H, W) feature map, got " + to_string(xs));
  window2d window;
  bool include_pad = false;
  if (global) {
    window.kernel = {xs.size() == 4 ? xs[2] : 1, xs.back()};
  } else {
    if (!has_attribute(n, "kernel_shape")) where.fail("missing attribute 'kernel_shape'");
    window = read_window(n, where, xs.size() - 2, {});
    if (window.dilation[0] != 1 || window.dilation[1] != 1) where.fail("dilated pooling is not supported");
    include_pad = int_attribute(n, "count_include_pad", 0) != 0;
    apply_ceil_mode(n, where, xs, window, include_pad);
  }
  const dims y = window_output(xs, xs[1], window, where);
  if (window.pads() && !include_pad) {
    // The count varies at the borders, so the zero point cannot be folded into a bias: the
    // input is first rescaled exactly to int16, x16 = 128 * (x - zx) (scale s_x / 128, zero
    // point 0, |x16| <= 32640), Tessera's average pool rounds mean(x16) half up, and the
    // QuantizeLinear requantizes that to any output quantization. The mean's rounding is
    // 1/256 of an input unit, so the result stays within one unit of the float reference.
    quantized_value x16;
    x16.tensor = cx.new_tensor(xs);
    x16.scale = {x.scale.front() / 128.0};
    x16.type = tessera::dtype::s16;
    emit_requant(cx, {where.name + "_rescale", where.op}, x, x16.scale.front(), 0, tessera::dtype::s16, x16.tensor);
    ops::pool op;
    op.max = false;
    op.window = window;
    const tensor_ref out = output(y);
    cx.add_node(where, std::move(op), {x16.tensor}, {out});
    quantized_value v = x16;
    v.tensor = out;
    v.mean = true;
    return v;
  }
  const std::int64_t channels = xs[1];
  // In checked arithmetic: a hostile channel count (2^63 - 1) overflowed `channels * count`.
  std::int64_t count = 0, weights = 0;
  const bool overflow = __builtin_mul_overflow(window.kernel[0], window.kernel[1], &count) ||
                        __builtin_mul_overflow(channels, count, &weights);
  // The weights below are made here, not read from the model, so their size is bounded here:
  // an 840-byte model (a Pad by 65535 rows, then a QLinearGlobalAveragePool) asked for 8.9 M
  // ones, a 30 MB header (a fuzzer timeout). 2^20 int8 weights are 1 MiB of flash for one
  // pool; a real network's global pool (1280 channels of 7 x 7: 62,720) is far below.
  if (overflow || count > max_made_constant_values || weights > max_made_constant_values)
    where.fail(fmt::format("the average pool becomes a depthwise convolution with {} x {} x {} weights of 1, "
                           "more than 2^20 (1 MiB of constants)",
                           channels, window.kernel[0], window.kernel[1]));
  // A depthwise conv with weights 1, device order [C][KH][KW][1] (built here: integer_conv
  // reads its window from Conv attributes, a global pool has none).
  ops::conv op;
  op.groups = channels;
  op.window = window;
  op.weights.shape = {channels, window.kernel[0], window.kernel[1], 1};
  op.weights.values.assign(static_cast<std::size_t>(weights), 1);
  op.bias = int_array{{channels}, std::vector<std::int64_t>(static_cast<std::size_t>(channels), -x.zero_point * count)};
  op.pad_value = padding_value(x, op.window);
  const tensor_ref out = output(y);
  cx.add_node(where, std::move(op), {x.tensor}, {out});
  quantized_value acc;
  acc.tensor = out;
  acc.type = tessera::dtype::s32;
  acc.scale = {x.scale.front() / static_cast<double>(count)};
  acc.mean = true;
  acc.mean_count = count;
  acc.mean_input_scale = x.scale.front();
  return acc;
}

/// A bias in accumulator units: an int32 DequantizeLinear whose scale is s_x * s_w (the ONNX
/// convention; then exact) or any other, or a float constant (then rounded to the nearest
/// accumulator unit, half to even).
std::optional<std::vector<std::int64_t>> qdq_bias(lowering_context& cx, const onnx::NodeProto& n, int i,
                                                  const node_context& where, const std::vector<double>& acc_scale,
                                                  std::int64_t channels) {
  if (!cx.has_input(n, i)) return std::nullopt;
  std::vector<double> real;
  if (const quantized_constant* c = cx.dequantized_constant(n.input(i))) {
    if (element_count(c->values.shape) != channels)
      where.fail(fmt::format("bias {} must have one value per output channel ({})", to_string(c->values.shape),
                             channels));
    // With as many values as channels, a per-axis scale of `channels` values runs along them.
    for (std::size_t size : {c->scale.size(), c->zero_point.size()})
      if (size != 1 && static_cast<std::int64_t>(size) != channels)
        where.fail(fmt::format("bias is quantized with {} scales or zero points for {} output channels", size,
                               channels));
    std::vector<std::int64_t> out;
    for (std::int64_t f = 0; f < channels; ++f) {
      const double s = entry(c->scale, f, where), as = entry(acc_scale, f, where);
      const std::int64_t q = c->values.values[static_cast<std::size_t>(f)] - entry(c->zero_point, f, where);
      out.push_back(std::fabs(s / as - 1.0) < 1e-6 ? q : quantize_real(s * static_cast<double>(q), as, 0));
    }
    return out;
  }
  const onnx::TensorProto* t = cx.constant_proto(n, i);
  if (t == nullptr) where.fail("bias '" + n.input(i) + "' must be a constant or a DequantizeLinear of one");
  real = float_values(*t, where, "bias '" + n.input(i) + "'");
  if (static_cast<std::int64_t>(real.size()) != channels)
    where.fail(fmt::format("bias has {} values for {} output channels", real.size(), channels));
  std::vector<std::int64_t> out;
  for (std::int64_t f = 0; f < channels; ++f)
    out.push_back(quantize_real(real[static_cast<std::size_t>(f)], entry(acc_scale, f, where), 0));
  return out;
}

make_output onnx_output(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  return [&cx, &n, where](const dims& y) { return cx.define_output(n, 0, y, where); };
}
make_output internal_output(lowering_context& cx) {
  return [&cx](const dims& y) { return cx.new_tensor(y); };
}

/// Per-output-channel accumulator scales of a conv/gemm: s_x * s_w[c], where the weights'
/// per-axis parameters must run along `axis` (the output channels) with `channels` entries.
std::vector<double> accumulator_scales(const quantized_value& x, const quantized_constant& w, int axis,
                                       std::int64_t channels, const node_context& where, const std::string& role) {
  require_axis(w, axis, channels, where, role);
  std::vector<double> s;
  for (std::int64_t c = 0; c < channels; ++c) s.push_back(x.scale.front() * entry(w.scale, c, where));
  return s;
}

// ---------------------------------------------------------------------------- QDQ float ops

void qdq_conv(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  const quantized_value& x = dequantized_input(cx, n, 0, where, "input");
  const quantized_constant& w = dequantized_constant_input(cx, n, 1, where, "weights");
  if (w.values.shape.empty()) where.fail("weights must have rank 3 or 4");
  const std::int64_t filters = w.values.shape[0];
  const auto bias = qdq_bias(cx, n, 2, where, accumulator_scales(x, w, 0, filters, where, "weights"), filters);
  cx.set_dequantized(n.output(0), integer_conv(cx, n, where, x, w, bias, onnx_output(cx, n, where)));
}

void qdq_gemm(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  const quantized_value& a = dequantized_input(cx, n, 0, where, "input A");
  if (int_attribute(n, "transA", 0) != 0) where.fail("transA = 1 is not supported");
  if (float_attribute(n, "alpha", 1.0f) != 1.0f || float_attribute(n, "beta", 1.0f) != 1.0f)
    where.fail("alpha and beta must be 1 in a quantized Gemm");
  const quantized_constant& b = dequantized_constant_input(cx, n, 1, where, "B");
  const bool trans_b = int_attribute(n, "transB", 0) != 0;
  if (b.values.shape.size() != 2) where.fail("B must be a matrix, got " + to_string(b.values.shape));
  const std::int64_t nn = trans_b ? b.values.shape[0] : b.values.shape[1];
  quantized_constant b_axis = b;  // scale per column of the output
  const auto bias = qdq_bias(cx, n, 2, where, accumulator_scales(a, b, trans_b ? 0 : 1, nn, where, "weights B"), nn);
  cx.set_dequantized(n.output(0), integer_gemm(cx, where, a, b_axis, trans_b, bias, onnx_output(cx, n, where)));
}

void qdq_matmul(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  const quantized_value& a = dequantized_input(cx, n, 0, where, "input A");
  if (const quantized_constant* b = cx.dequantized_constant(n.input_size() > 1 ? n.input(1) : std::string())) {
    cx.set_dequantized(n.output(0), integer_gemm(cx, where, a, *b, false, std::nullopt, onnx_output(cx, n, where)));
    return;
  }
  const quantized_value& b = dequantized_input(cx, n, 1, where, "input B");
  cx.set_dequantized(n.output(0), integer_matmul(cx, n, where, a, b, onnx_output(cx, n, where)));
}

/// The real values of a constant operand: a DequantizeLinear of a constant (per tensor, or per
/// its last axis) or a float constant.
int_array constant_operand(lowering_context& cx, const onnx::NodeProto& n, int i, const node_context& where,
                           std::vector<double>& real) {
  if (const quantized_constant* c = cx.dequantized_constant(n.input(i))) {
    const auto last = static_cast<int>(c->values.shape.size()) - 1;
    if ((c->scale.size() > 1 || c->zero_point.size() > 1) && c->axis != last)
      where.fail("a constant operand quantized per axis must vary along its last axis");
    const std::int64_t inner = c->values.shape.empty() ? 1 : c->values.shape.back();
    for (std::size_t k = 0; k < c->values.values.size(); ++k) {
      const std::int64_t j = static_cast<std::int64_t>(k) % inner;
      const double scale = entry(c->scale, j, where);
      real.push_back(scale * static_cast<double>(c->values.values[k] - entry(c->zero_point, j, where)));
    }
    return c->values;
  }
  const onnx::TensorProto* t = cx.constant_proto(n, i);
  if (t == nullptr) where.fail("operand '" + n.input(i) + "' must be dequantized or a constant");
  real = float_values(*t, where, "constant operand '" + n.input(i) + "'");
  return int_array{dims(t->dims().begin(), t->dims().end()), {}};
}

/// real(a) + c for a constant c (real values `real`, shape `shape`) and an 8-bit `a`: ONNX
/// Runtime's bias Add after a quantized MatMul (QLinearAdd with a constant B; in QDQ an Add of a
/// DequantizeLinear of a constant). `a` is first rescaled exactly to int16 on s_c = s_a / 128,
/// a16 = 128 * (a - za), the constant rounded to s_c (half to even), and the int32 sum has scale
/// s_c; the requantization after it rounds once more (within one unit of the float reference:
/// the constant's rounding is at most 1/256 of an input unit).
quantized_value integer_add_constant(lowering_context& cx, const node_context& where, const quantized_value& a_value,
                                     const dims& shape, const std::vector<double>& real, const make_output& output) {
  const quantized_value a = activation(cx, where, a_value, "input A");
  const dims as = cx.ir().tensors[static_cast<std::size_t>(a.tensor)].shape;
  dims y;
  if (!broadcast_shapes(as, shape, y) || y != as)
    where.fail("constant " + to_string(shape) + " does not broadcast to the input " + to_string(as));
  const double common = a.scale.front() / 128.0;
  const tensor_ref a16 = cx.new_tensor(as);
  emit_requant(cx, {where.name + "_rescale_a", where.op}, a, common, 0, tessera::dtype::s16, a16);
  int_array c{with_rank(shape, as.size()), {}};
  for (double r : real) c.values.push_back(quantize_real(r, common, 0));
  require_fits(c, tessera::dtype::s32, where, "constant operand in units of the rescaled input");
  ops::binary op;
  op.constant_b = std::move(c);
  const tensor_ref out = output(as);
  cx.add_node(where, std::move(op), {a16}, {out});
  quantized_value acc;
  acc.tensor = out;
  acc.type = tessera::dtype::s32;
  acc.scale = {common};
  return acc;
}

/// Accumulator + constant (a bias Add after a MatMul/Conv in a QDQ graph): the constant in
/// accumulator units (rounded half to even), an int32 add that the fusion folds into a gemm bias.
void qdq_add_constant(lowering_context& cx, const onnx::NodeProto& n, const node_context& where, int variable) {
  const quantized_value v = dequantized_input(cx, n, variable, where, "operand");
  std::vector<double> real;
  const int_array c = constant_operand(cx, n, 1 - variable, where, real);
  if (v.type != tessera::dtype::s32) {
    cx.set_dequantized(n.output(0), integer_add_constant(cx, where, v, c.shape, real, onnx_output(cx, n, where)));
    return;
  }
  const dims& x = cx.ir().tensors[static_cast<std::size_t>(v.tensor)].shape;
  dims y;
  if (!broadcast_shapes(x, c.shape, y) || y != x)
    where.fail("constant " + to_string(c.shape) + " does not broadcast to the accumulator " + to_string(x));
  const dims cs = with_rank(c.shape, x.size());
  // The accumulator's scale varies along v.axis at most: the constant must too.
  for (std::size_t d = 0; d < cs.size(); ++d)
    if (cs[d] != 1 && v.scale.size() > 1 && static_cast<int>(d) != v.axis)
      where.fail("a constant that varies along another axis than the per-channel scale is not supported");
  const auto strides = strides_of(cs);
  int_array b{cs, {}};
  for (std::size_t k = 0; k < real.size(); ++k) {
    const std::int64_t channel = v.axis >= 0 && cs[static_cast<std::size_t>(v.axis)] != 1
                                     ? (static_cast<std::int64_t>(k) / strides[static_cast<std::size_t>(v.axis)]) %
                                           cs[static_cast<std::size_t>(v.axis)]
                                     : 0;
    b.values.push_back(quantize_real(real[k], entry(v.scale, channel, where), 0));
  }
  if (v.scale.size() > 1 && (v.axis < 0 || cs[static_cast<std::size_t>(v.axis)] == 1))
    where.fail("a scalar constant added to a per-channel accumulator is not supported");
  require_fits(b, tessera::dtype::s32, where, "constant operand in accumulator units");
  ops::binary op;
  op.constant_b = std::move(b);
  const tensor_ref out = cx.define_output(n, 0, x, where);
  cx.add_node(where, std::move(op), {v.tensor}, {out});
  quantized_value acc = v;
  acc.tensor = out;
  cx.set_dequantized(n.output(0), std::move(acc));
}

void qdq_add(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  for (int i : {0, 1})
    if (cx.has_input(n, 1 - i) && cx.dequantized(n.input(1 - i)) == nullptr && cx.dequantized(n.input(i)) != nullptr)
      return qdq_add_constant(cx, n, where, i);
  const quantized_value& a = dequantized_input(cx, n, 0, where, "input A");
  const quantized_value& b = dequantized_input(cx, n, 1, where, "input B");
  cx.set_dequantized(n.output(0), integer_add(cx, where, a, b, onnx_output(cx, n, where)));
}

/// Mul of two dequantized tensors, or of one and a DequantizeLinear of a constant (either side).
void qdq_mul(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  for (int i : {0, 1}) {
    const quantized_constant* c = cx.has_input(n, 1 - i) ? cx.dequantized_constant(n.input(1 - i)) : nullptr;
    if (c != nullptr && cx.dequantized(n.input(i)) != nullptr) {
      const quantized_value& a = dequantized_input(cx, n, i, where, "operand");
      cx.set_dequantized(n.output(0), integer_mul(cx, where, a, nullptr, c, onnx_output(cx, n, where)));
      return;
    }
  }
  const quantized_value& a = dequantized_input(cx, n, 0, where, "input A");
  const quantized_value& b = dequantized_input(cx, n, 1, where, "input B");
  cx.set_dequantized(n.output(0), integer_mul(cx, where, a, &b, nullptr, onnx_output(cx, n, where)));
}

/// The float definition of an elementwise op that becomes a lookup table, in double precision
/// (float attributes are read as the float32 values the model stores). Written like
/// testing/quantized_reference.py evaluates it, so the tables match that reference exactly.
std::function<double(double)> float_function(const onnx::NodeProto& n, const std::string& op) {
  if (op == "Sigmoid" || op == "QLinearSigmoid") return [](double x) { return 1.0 / (1.0 + std::exp(-x)); };
  if (op == "Tanh") return [](double x) { return std::tanh(x); };
  if (op == "HardSwish") return [](double x) { return x * std::max(0.0, std::min(1.0, x / 6.0 + 0.5)); };
  if (op == "HardSigmoid") {
    const double alpha = float_attribute(n, "alpha", 0.2f), beta = float_attribute(n, "beta", 0.5f);
    return [alpha, beta](double x) { return std::max(0.0, std::min(1.0, alpha * x + beta)); };
  }
  const double alpha = float_attribute(n, "alpha", 0.01f);  // LeakyRelu, QLinearLeakyRelu
  return [alpha](double x) { return x >= 0 ? x : alpha * x; };
}

/// `x` with the function of `n` pending (composed after any function already pending).
quantized_value with_function(const onnx::NodeProto& n, const node_context& where, const quantized_value& x) {
  if (x.type == tessera::dtype::s32)
    where.fail("the input is an int32 accumulator: insert QuantizeLinear/DequantizeLinear before this op");
  per_tensor(x.scale, where, "input scale");
  quantized_value v = x;
  std::function<double(double)> f = float_function(n, n.op_type());
  if (v.function) f = [first = v.function, f](double r) { return f(first(r)); };
  v.function = std::move(f);
  v.function_op = v.function_op.empty() ? n.op_type() : v.function_op + " -> " + n.op_type();
  return v;
}

void qdq_average(lowering_context& cx, const onnx::NodeProto& n, const node_context& where, bool global) {
  const quantized_value& x = dequantized_input(cx, n, 0, where, "input");
  cx.set_dequantized(n.output(0), integer_average(cx, n, where, x, global, onnx_output(cx, n, where)));
}

/// Pad (constant mode, value 0) of a dequantized tensor: the real value 0 is the zero point, so
/// the integers are padded with zx and keep the quantization. PyTorch exports AvgPool2d as a
/// Pad (of zero width) in front of the AveragePool.
void qdq_pad(lowering_context& cx, const onnx::NodeProto& n, const node_context& where, lowering_function plain) {
  const quantized_value x = dequantized_input(cx, n, 0, where, "input");
  if (x.type == tessera::dtype::s32 || x.scale.size() > 1 || std::isfinite(x.lo) || std::isfinite(x.hi))
    where.fail("a Pad of an int32 accumulator or of a Relu/Clip result: insert QuantizeLinear before it");
  double value = 0;
  if (cx.opset() < 11) {
    value = float_attribute(n, "value", 0.0f);
  } else if (cx.has_input(n, 2)) {
    const onnx::TensorProto* t = cx.constant_proto(n, 2);
    if (t == nullptr) where.fail("constant_value must be a constant");
    const std::vector<double> v = float_values(*t, where, "constant_value");
    if (v.size() != 1) where.fail("constant_value must be a scalar");
    value = v[0];
  }
  if (value != 0)
    where.fail(fmt::format("a Pad of a dequantized tensor must pad with 0 (the zero point), not {}", value));
  plain(cx, n, where);
  std::get<ops::pad>(cx.ir().nodes.back().operation).value = x.zero_point;
  quantized_value v = x;
  v.tensor = cx.tensor_named(n.output(0));
  cx.set_dequantized(n.output(0), std::move(v));
}

bool same_quantization(const quantized_value& a, const quantized_value& b) {
  return a.scale == b.scale && a.axis == b.axis && a.zero_point == b.zero_point && a.type == b.type && a.lo == b.lo &&
         a.hi == b.hi;
}

}  // namespace

// ---------------------------------------------------------------------------- entry points

/// The quantization every reader of `name` gives it, when all of them are QuantizeLinear nodes
/// with one per-tensor (scale, zero point): the lookahead of a requantizing Concat.
std::optional<output_quantization> quantized_by_readers(lowering_context& cx, const std::string& name) {
  const auto readers = cx.readers(name);
  if (readers.empty() || cx.is_graph_output(name)) return std::nullopt;
  std::optional<output_quantization> common;
  for (const onnx::NodeProto* r : readers) {
    if (r->op_type() != "QuantizeLinear" || r->input(0) != name) return std::nullopt;
    const node_context where{r->name(), r->op_type()};
    // Its constants may be Constant nodes the lowering has not reached yet (torch writes them
    // right before their reader).
    const onnx::TensorProto* scale = r->input_size() > 1 ? cx.constant_ahead(r->input(1)) : nullptr;
    const onnx::TensorProto* zp = r->input_size() > 2 ? cx.constant_ahead(r->input(2)) : nullptr;
    if (scale == nullptr || zp == nullptr) return std::nullopt;
    const std::vector<double> s = float_values(*scale, where, "y_scale '" + r->input(1) + "'");
    const int_array z = integer_tensor(*zp, where, "y_zero_point '" + r->input(2) + "'");
    if (s.size() != 1 || z.values.size() != 1 || !std::isfinite(s.front()) || s.front() <= 0) return std::nullopt;
    output_quantization q;
    q.type = zero_point_type(zp->data_type(), where, "y_zero_point");
    q.scale = s.front();
    q.zero_point = z.values.front();
    if (common && (common->scale != q.scale || common->zero_point != q.zero_point || common->type != q.type))
      return std::nullopt;
    common = q;
  }
  return common;
}

/// QDQ Concat. Inputs in one quantization are joined as they are (data movement). Inputs in
/// different quantizations (torch's `cat`, ONNX Runtime's QDQ Concat) are each requantized to
/// the quantization of the QuantizeLinear that reads the Concat -- the same integers as
/// QLinearConcat, one rounding per element: y = saturate(round(s_i * (q_i - z_i) / s_y) + z_y)
/// (the integer rule of docs/semantics.md, within one unit) -- and that QuantizeLinear then
/// changes nothing.
void qdq_concat(lowering_context& cx, const onnx::NodeProto& n, const node_context& where, lowering_function plain) {
  std::vector<quantized_value> parts;
  bool same = true;
  for (int i = 0; i < n.input_size(); ++i) {
    const quantized_value* v = cx.dequantized(n.input(i));
    if (v == nullptr) where.fail("input '" + n.input(i) + "' is not a dequantized tensor like the first one");
    require_no_function(where, *v, fmt::format("input {}", i));
    if (v->type == tessera::dtype::s32 || v->scale.size() > 1)
      where.fail("data movement of an int32 accumulator: insert QuantizeLinear before this op");
    same = same && same_quantization(parts.empty() ? *v : parts.front(), *v);
    parts.push_back(*v);
  }
  if (n.output_size() < 1 || n.output(0).empty()) where.fail("missing output");
  if (same) {
    plain(cx, n, where);
    quantized_value v = parts.front();
    v.tensor = cx.tensor_named(n.output(0));
    cx.set_dequantized(n.output(0), v);
    return;
  }
  const std::optional<output_quantization> target = quantized_by_readers(cx, n.output(0));
  if (!target)
    where.fail("inputs have different quantization (scale, zero point or clamp) and the output is not read by "
               "QuantizeLinear alone: requantize them to one first");
  if (target->type != tessera::dtype::s8 && target->type != tessera::dtype::u8)
    where.fail("the output zero point must be int8 or uint8, not " + c_type_name(target->type));
  if (!has_attribute(n, "axis")) where.fail("missing attribute 'axis'");
  std::vector<tensor_ref> inputs;
  dims y;
  int axis = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const dims xs = cx.ir().tensors[static_cast<std::size_t>(parts[i].tensor)].shape;
    if (i == 0) {
      axis = normalize_axis(int_attribute(n, "axis", 0), xs.size(), where);
      y = xs;
    } else {
      bool agree = xs.size() == y.size();
      for (std::size_t d = 0; agree && d < xs.size(); ++d) agree = static_cast<int>(d) == axis || xs[d] == y[d];
      if (!agree)
        where.fail(fmt::format("input {} {} does not match {} outside the axis", i, to_string(xs), to_string(y)));
      y[static_cast<std::size_t>(axis)] += xs[static_cast<std::size_t>(axis)];
    }
    if (is_identity(parts[i], target->scale, target->zero_point, target->type)) {
      inputs.push_back(parts[i].tensor);
      continue;
    }
    const tensor_ref t = cx.new_tensor(xs);
    emit_requant(cx, {fmt::format("{}_requant_{}", where.name, i), where.op}, parts[i], target->scale,
                 target->zero_point, target->type, t);
    inputs.push_back(t);
  }
  const tensor_ref out = cx.define_output(n, 0, y, where);
  cx.add_node(where, ops::concat{axis}, std::move(inputs), {out});
  quantized_value v;
  v.tensor = out;
  v.scale = {target->scale};
  v.zero_point = target->zero_point;
  v.type = target->type;
  cx.set_dequantized(n.output(0), std::move(v));
}

/// ReduceMean over the spatial axes of a quantized (N, C, H, W) or (N, C, W) map (torch's
/// `x.mean((2, 3))`): the global average pool (an exact sum, scale s_x / (H * W), rounded once
/// by the QuantizeLinear), reshaped to (N, C) when keepdims = 0.
void qdq_reduce_mean(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  const quantized_value& x = dequantized_input(cx, n, 0, where, "input");
  const dims xs = cx.ir().tensors[static_cast<std::size_t>(x.tensor)].shape;
  dims axes = ints_attribute(n, "axes", {});
  if (cx.has_input(n, 1)) axes = cx.constant_input(n, 1, where, "axes").values;
  if (axes.empty()) where.fail("a mean over all axes is not supported (only over the spatial axes of a feature map)");
  std::vector<bool> reduced(xs.size(), false);
  for (std::int64_t a : axes) reduced[static_cast<std::size_t>(normalize_axis(a, xs.size(), where))] = true;
  bool spatial = xs.size() == 3 || xs.size() == 4;
  for (std::size_t d = 0; spatial && d < xs.size(); ++d) spatial = reduced[d] == (d >= 2);
  if (!spatial)
    where.fail("ReduceMean is supported over the spatial axes of an (N, C, H, W) or (N, C, W) map only, got axes " +
               to_string(axes) + " of " + to_string(xs));
  if (n.output_size() < 1 || n.output(0).empty()) where.fail("missing output");
  const bool keep = int_attribute(n, "keepdims", 1) != 0;
  quantized_value acc = integer_average(cx, n, where, x, true,
                                        keep ? onnx_output(cx, n, where) : internal_output(cx));
  if (!keep) {
    const tensor_ref out = cx.define_output(n, 0, {xs[0], xs[1]}, where);
    cx.add_node({where.name + "_keepdims", where.op}, ops::reshape{}, {acc.tensor}, {out});
    acc.tensor = out;
  }
  cx.set_dequantized(n.output(0), std::move(acc));
}

/// HardSigmoid(x) * x, torch's hardswish at opset 13: one pending function r * f(r) of x, so
/// the QuantizeLinear after it becomes one lookup table (exact, like a QDQ HardSwish). Returns
/// false when the Mul is not of that form.
bool mul_by_own_function(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  if (n.input_size() != 2) return false;
  const quantized_value* a = cx.dequantized(n.input(0));
  const quantized_value* b = cx.dequantized(n.input(1));
  if (a == nullptr || b == nullptr || a->tensor != b->tensor) return false;
  const quantized_value* plain = a->function ? b : a;
  const quantized_value* with = a->function ? a : b;
  if (plain->function || !with->function || !same_quantization(*plain, *with) || plain->scale != with->scale ||
      plain->zero_point != with->zero_point)
    return false;
  quantized_value v = *with;
  v.function = [f = with->function](double r) { return r * f(r); };
  v.function_op = with->function_op + " -> Mul by its input";
  if (n.output_size() < 1 || n.output(0).empty()) where.fail("missing output");
  cx.set_dequantized(n.output(0), std::move(v));
  return true;
}

void lower_on_dequantized(lowering_context& cx, const onnx::NodeProto& n, const node_context& where,
                          lowering_function plain) {
  const std::string& op = n.op_type();
  if (op == "Conv") return qdq_conv(cx, n, where);
  if (op == "Gemm") return qdq_gemm(cx, n, where);
  if (op == "MatMul") return qdq_matmul(cx, n, where);
  if (op == "Add") return qdq_add(cx, n, where);
  if (op == "Mul") return mul_by_own_function(cx, n, where) ? void() : qdq_mul(cx, n, where);
  if (op == "ReduceMean") return qdq_reduce_mean(cx, n, where);
  if (op == "AveragePool") return qdq_average(cx, n, where, false);
  if (op == "GlobalAveragePool") return qdq_average(cx, n, where, true);
  if (op == "Pad") return qdq_pad(cx, n, where, plain);
  if (op == "Relu" || op == "Clip" || op == "DequantizeLinear" || op == "Shape") return plain(cx, n, where);
  if (op == "Sigmoid" || op == "Tanh" || op == "HardSigmoid" || op == "HardSwish" || op == "LeakyRelu") {
    if (n.output_size() < 1 || n.output(0).empty()) where.fail("missing output");
    return cx.set_dequantized(n.output(0), with_function(n, where, dequantized_input(cx, n, 0, where, "input")));
  }
  static const char* const data_movement[] = {"MaxPool", "GlobalMaxPool", "Reshape", "Flatten", "Identity",
                                              "Squeeze", "Unsqueeze",     "Transpose", "Slice", "Concat",
                                              "Resize"};
  if (std::find_if(std::begin(data_movement), std::end(data_movement), [&](const char* s) { return op == s; }) ==
      std::end(data_movement))
    where.fail("this op on a dequantized (float) tensor is not supported: onnx2hpp folds QDQ around Conv, Gemm, "
               "MatMul, Add, Mul, average pools, Relu/Clip, Sigmoid/Tanh/HardSigmoid/HardSwish/LeakyRelu and data "
               "movement (MaxPool, Reshape, Flatten, Transpose, Squeeze, Unsqueeze, Slice, Concat, Pad with 0, Resize)");
  if (op == "Concat") return qdq_concat(cx, n, where, plain);
  // Data movement: the same op on the integers, same quantization.
  const quantized_value& first = dequantized_input(cx, n, 0, where, "input");
  require_no_function(where, first, "the input");
  if (first.type == tessera::dtype::s32 || first.scale.size() > 1)
    where.fail("data movement of an int32 accumulator: insert QuantizeLinear before this op");
  for (int i = 1; i < n.input_size(); ++i) {
    const quantized_value* other = cx.dequantized(n.input(i));
    if (other == nullptr) {
      if (op == "Concat") where.fail("input '" + n.input(i) + "' is not a dequantized tensor like the first one");
      continue;
    }
    if (!same_quantization(first, *other))
      where.fail("inputs have different quantization (scale, zero point or clamp); requantize them to one first");
  }
  if (op == "Resize" && string_attribute(n, "mode", "nearest") == "linear") {
    require_resize_keeps_quantization(cx, n, where, first.scale.front(), first.zero_point);
    // The interpolation reads the clamped values: a pending Relu/Clip is applied before it
    // (it commutes with the other data movement, not with a weighted sum).
    if (std::isfinite(first.lo) || std::isfinite(first.hi))
      cx.set_dequantized(n.input(0), materialized(cx, where, first));
  }
  const quantized_value value = first;
  plain(cx, n, where);
  for (const auto& out : n.output()) {
    if (out.empty()) continue;
    quantized_value v = value;
    v.tensor = cx.tensor_named(out);
    cx.set_dequantized(out, v);
  }
}

void lower_dequantize_linear(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  const dims x = cx.input_shape(n, 0, where);
  const std::vector<double> scale = scale_input(cx, n, 1, where, "x_scale");
  tessera::dtype zp_type{};
  const std::vector<std::int64_t> zp = zero_point_input(cx, n, 2, where, "x_zero_point", &zp_type);
  const bool per_axis = scale.size() > 1 || zp.size() > 1;
  int axis = -1;
  if (per_axis) axis = normalize_axis(int_attribute(n, "axis", 1), x.size(), where);
  if (per_axis) {
    for (std::size_t size : {scale.size(), zp.size()})
      if (size != 1 && static_cast<std::int64_t>(size) != x[static_cast<std::size_t>(axis)])
        where.fail(fmt::format("{} scales or zero points for axis {} of extent {}", size, axis,
                               x[static_cast<std::size_t>(axis)]));
  }
  if (cx.is_constant_input(n, 0)) {
    quantized_constant c;
    c.values = quantized_integers(cx, n, 0, where, "x");
    c.scale = scale;
    c.zero_point = zp;
    c.axis = axis;
    c.source = n.input(0);
    cx.set_dequantized_constant(n.output(0), std::move(c));
    return;
  }
  quantized_value v;
  v.tensor = cx.tensor_input(n, 0, where, "input");
  if (per_axis) where.fail("a per-axis DequantizeLinear of a run-time tensor is not supported (only of weights)");
  v.scale = scale;
  v.zero_point = zp.front();
  v.type = cx.has_input(n, 2) ? zp_type : activation_type(cx, v.tensor, n, 2, where);
  if (v.type == tessera::dtype::s32) where.fail("a run-time int32 input is not supported");
  cx.set_dequantized(n.output(0), std::move(v));
}

void take_float_input(lowering_context& cx, boundary_quantization b, const std::string& integer_tensor) {
  const tensor_ref t = cx.tensor_named(b.onnx_name);
  tensor& input = cx.ir().tensors[static_cast<std::size_t>(t)];
  input.onnx_elem_type = b.type == tessera::dtype::u8 ? onnx::TensorProto::UINT8 : onnx::TensorProto::INT8;
  b.input = true;
  b.index = static_cast<int>(std::find(cx.ir().inputs.begin(), cx.ir().inputs.end(), t) - cx.ir().inputs.begin());
  cx.alias(integer_tensor, t);
  cx.set_element_type(integer_tensor, input.onnx_elem_type);
  cx.set_element_type(b.onnx_name, input.onnx_elem_type);
  cx.ir().boundaries.push_back(std::move(b));
}

/// A QuantizeLinear of a float graph input (the start of every export): the network takes the
/// integer tensor instead, and the header documents its scale and zero point
/// (meta::input_quantization), which the caller quantizes with.
void quantize_graph_input(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  const std::string& name = n.input(0);
  for (const onnx::NodeProto* r : cx.readers(name))
    if (r != &n)
      where.fail("the float graph input '" + name + "' is also read by " + r->op_type() + " '" + r->name() +
                 "': onnx2hpp takes a float input off only when one QuantizeLinear alone reads it");
  const std::vector<double> scale = scale_input(cx, n, 1, where, "y_scale");
  tessera::dtype type{};
  const std::vector<std::int64_t> zp = zero_point_input(cx, n, 2, where, "y_zero_point", &type);
  if (type != tessera::dtype::s8 && type != tessera::dtype::u8)
    where.fail("the output zero point must be int8 or uint8, not " + c_type_name(type));
  const double s = per_tensor(scale, where, "y_scale (per-axis input quantization)");
  const std::int64_t z = per_tensor(zp, where, "y_zero_point");
  if (n.output_size() < 1 || n.output(0).empty()) where.fail("missing output");
  take_float_input(cx, {name, true, 0, s, z, type, tessera::float_arithmetic::linear, {}, 0, 0}, n.output(0));
}

void lower_quantize_linear(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  if (!cx.has_input(n, 0)) where.fail("missing input");
  const quantized_value* v = cx.dequantized(n.input(0));
  if (v == nullptr && cx.is_float_graph_input(n.input(0))) return quantize_graph_input(cx, n, where);
  if (v == nullptr)
    where.fail("input '" + n.input(0) +
               "' is a float tensor that does not come from DequantizeLinear or a quantized op: onnx2hpp "
               "converts integer networks (quantize the graph input offline and start the graph at the integer "
               "tensor)");
  const std::vector<double> scale = scale_input(cx, n, 1, where, "y_scale");
  tessera::dtype type{};
  const std::vector<std::int64_t> zp = zero_point_input(cx, n, 2, where, "y_zero_point", &type);
  const quantized_value value = *v;
  quantize_to_output(cx, n, 0, where, value, per_tensor(scale, where, "y_scale (per-axis output quantization)"),
                     per_tensor(zp, where, "y_zero_point"), type);
  const onnx::TensorProto* zp_proto = cx.constant_proto(n, 2);
  cx.set_element_type(n.output(0), zp_proto != nullptr ? zp_proto->data_type() : onnx::TensorProto::UINT8);
}

void lower_relu_clip(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  const quantized_value* in = cx.has_input(n, 0) ? cx.dequantized(n.input(0)) : nullptr;
  if (in == nullptr)
    where.fail("unsupported operator on an integer tensor: onnx2hpp reads " + n.op_type() +
               " only in quantized graphs (between DequantizeLinear and QuantizeLinear, or after a quantized "
               "Conv/Gemm/MatMul/Add)");
  require_no_function(where, *in, "the input");
  quantized_value v = *in;
  if (n.op_type() == "Relu") {
    v.lo = std::max(v.lo, 0.0);
  } else if (cx.opset() < 11) {
    v.lo = std::max(v.lo, static_cast<double>(float_attribute(n, "min", -3.402823466e38f)));
    v.hi = std::min(v.hi, static_cast<double>(float_attribute(n, "max", 3.402823466e38f)));
  } else {
    for (int i : {1, 2}) {
      if (!cx.has_input(n, i)) continue;
      const onnx::TensorProto* t = cx.constant_proto(n, i);
      if (t == nullptr) where.fail(std::string(i == 1 ? "min" : "max") + " must be a constant");
      const std::vector<double> bound = float_values(*t, where, i == 1 ? "min" : "max");
      if (bound.size() != 1) where.fail("Clip bounds must be scalars");
      if (i == 1) v.lo = std::max(v.lo, bound[0]);
      else v.hi = std::min(v.hi, bound[0]);
    }
  }
  if (n.output_size() < 1 || n.output(0).empty()) where.fail("missing output");
  cx.set_dequantized(n.output(0), std::move(v));
}

void lower_qlinear_conv(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  const quantized_value x = qoperator_input(cx, n, 0, 1, 2, where, "x");
  const quantized_constant w = qoperator_constant(cx, n, 3, 4, 5, 0, where, "w");
  if (w.values.shape.empty()) where.fail("weights must have rank 3 or 4");
  const std::int64_t filters = w.values.shape[0];
  const output_quantization out_q = qoperator_output(cx, n, 6, where, "y_scale", "y_zero_point");
  std::optional<std::vector<std::int64_t>> bias;
  if (cx.has_input(n, 8)) {
    const int_array b = cx.constant_input(n, 8, where, "bias B");
    if (element_count(b.shape) != filters) where.fail("bias " + to_string(b.shape) + " must have one value per filter");
    require_fits(b, tessera::dtype::s32, where, "bias B");
    bias = b.values;
  }
  const quantized_value acc = integer_conv(cx, n, where, x, w, bias, internal_output(cx));
  quantize_to_output(cx, n, 0, where, acc, out_q.scale, out_q.zero_point, out_q.type);
}

void lower_qlinear_matmul(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  const quantized_value a = qoperator_input(cx, n, 0, 1, 2, where, "a");
  const output_quantization out_q = qoperator_output(cx, n, 6, where, "y_scale", "y_zero_point");
  quantized_value acc;
  if (cx.is_constant_input(n, 3)) {
    const dims bs = cx.input_shape(n, 3, where);
    const quantized_constant b = qoperator_constant(cx, n, 3, 4, 5, static_cast<int>(bs.size()) - 1, where, "b");
    if (element_count(bs) != (bs.size() >= 2 ? bs[bs.size() - 2] * bs.back() : 0))
      where.fail("a constant b must be a matrix (batched constant weights are not supported), got " + to_string(bs));
    acc = integer_gemm(cx, where, a, b, false, std::nullopt, internal_output(cx));
  } else {
    const quantized_value b = qoperator_input(cx, n, 3, 4, 5, where, "b");
    acc = integer_matmul(cx, n, where, a, b, internal_output(cx));
  }
  quantize_to_output(cx, n, 0, where, acc, out_q.scale, out_q.zero_point, out_q.type);
}

/// com.microsoft QGemm (ONNX Runtime's quantizer writes every quantized Gemm this way):
/// Y = quantize(alpha * (A - a_zp) a_scale (B - b_zp) b_scale + C a_scale b_scale) with C an
/// int32 bias in accumulator units: the integer gemm of QLinearMatMul with C as its bias.
void lower_qgemm(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  if (int_attribute(n, "transA", 0) != 0) where.fail("transA = 1 is not supported");
  if (float_attribute(n, "alpha", 1.0f) != 1.0f) where.fail("alpha must be 1");
  if (!cx.has_input(n, 7))
    where.fail("a QGemm without y_scale (a float output) is not supported: onnx2hpp emits integer networks");
  const quantized_value a = qoperator_input(cx, n, 0, 1, 2, where, "A");
  const bool trans_b = int_attribute(n, "transB", 0) != 0;
  const quantized_constant b = qoperator_constant(cx, n, 3, 4, 5, trans_b ? 0 : 1, where, "B");
  if (b.values.shape.size() != 2) where.fail("B must be a matrix, got " + to_string(b.values.shape));
  const std::int64_t nn = trans_b ? b.values.shape[0] : b.values.shape[1];
  std::optional<std::vector<std::int64_t>> bias;
  if (cx.has_input(n, 6)) {
    const int_array c = cx.constant_input(n, 6, where, "C");
    require_fits(c, tessera::dtype::s32, where, "C");
    if (element_count(c.shape) == nn) bias = c.values;
    else if (element_count(c.shape) == 1) bias = std::vector<std::int64_t>(static_cast<std::size_t>(nn), c.values[0]);
    else where.fail("C " + to_string(c.shape) + " must have one value per output column (" + std::to_string(nn) + ")");
  }
  const output_quantization out_q = qoperator_output(cx, n, 7, where, "y_scale", "y_zero_point");
  const quantized_value acc = integer_gemm(cx, where, a, b, trans_b, bias, internal_output(cx));
  quantize_to_output(cx, n, 0, where, acc, out_q.scale, out_q.zero_point, out_q.type);
}

void lower_conv_integer(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  quantized_value x;
  if (cx.is_constant_input(n, 0)) where.fail("the input must be a run-time tensor");
  x.tensor = cx.tensor_input(n, 0, where, "input");
  x.scale = {1.0};
  x.zero_point = per_tensor(zero_point_input(cx, n, 2, where, "x_zero_point", nullptr), where, "x_zero_point");
  x.type = activation_type(cx, x.tensor, n, 2, where);
  quantized_constant w;
  if (!cx.is_constant_input(n, 1)) where.fail("weights must be a constant (initializer or Constant node)");
  w.values = quantized_integers(cx, n, 1, where, "weights");
  w.scale = {1.0};
  w.zero_point = zero_point_input(cx, n, 3, where, "w_zero_point", nullptr);
  w.axis = 0;
  integer_conv(cx, n, where, x, w, std::nullopt, onnx_output(cx, n, where));
}

void lower_matmul_integer(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  quantized_value a;
  if (cx.is_constant_input(n, 0)) where.fail("a constant left operand is not supported");
  a.tensor = cx.tensor_input(n, 0, where, "input A");
  a.scale = {1.0};
  a.zero_point = per_tensor(zero_point_input(cx, n, 2, where, "a_zero_point", nullptr), where, "a_zero_point");
  a.type = activation_type(cx, a.tensor, n, 2, where);
  if (cx.is_constant_input(n, 1)) {
    const dims bs = cx.input_shape(n, 1, where);
    quantized_constant b;
    b.values = quantized_integers(cx, n, 1, where, "B");
    b.scale = {1.0};
    b.zero_point = zero_point_input(cx, n, 3, where, "b_zero_point", nullptr);
    b.axis = static_cast<int>(bs.size()) - 1;
    integer_gemm(cx, where, a, b, false, std::nullopt, onnx_output(cx, n, where));
    return;
  }
  quantized_value b;
  b.tensor = cx.tensor_input(n, 1, where, "input B");
  b.scale = {1.0};
  b.zero_point = per_tensor(zero_point_input(cx, n, 3, where, "b_zero_point", nullptr), where, "b_zero_point");
  b.type = activation_type(cx, b.tensor, n, 3, where);
  integer_matmul(cx, n, where, a, b, onnx_output(cx, n, where));
}

void lower_qlinear_add(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  const output_quantization out_q = qoperator_output(cx, n, 6, where, "C_scale", "C_zero_point");
  for (int i : {0, 3}) {
    // A constant operand (ONNX Runtime's bias Add after QLinearMatMul).
    if (!cx.is_constant_input(n, i) || cx.is_constant_input(n, 3 - i)) continue;
    const quantized_value a = qoperator_input(cx, n, 3 - i, 4 - i, 5 - i, where, i == 0 ? "B" : "A");
    const dims cs = cx.input_shape(n, i, where);
    const quantized_constant c =
        qoperator_constant(cx, n, i, i + 1, i + 2, static_cast<int>(cs.size()) - 1, where, i == 0 ? "A" : "B");
    const double scale = per_tensor(c.scale, where, "constant operand scale");
    const std::int64_t zero = per_tensor(c.zero_point, where, "constant operand zero point");
    std::vector<double> real;
    for (std::int64_t q : c.values.values) real.push_back(scale * static_cast<double>(q - zero));
    const quantized_value acc = integer_add_constant(cx, where, a, c.values.shape, real, internal_output(cx));
    quantize_to_output(cx, n, 0, where, acc, out_q.scale, out_q.zero_point, out_q.type);
    return;
  }
  const quantized_value a = qoperator_input(cx, n, 0, 1, 2, where, "A");
  const quantized_value b = qoperator_input(cx, n, 3, 4, 5, where, "B");
  const quantized_value acc = integer_add(cx, where, a, b, internal_output(cx));
  quantize_to_output(cx, n, 0, where, acc, out_q.scale, out_q.zero_point, out_q.type);
}

void lower_qlinear_mul(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  const quantized_value a = qoperator_input(cx, n, 0, 1, 2, where, "A");
  const quantized_value b = qoperator_input(cx, n, 3, 4, 5, where, "B");
  const output_quantization out_q = qoperator_output(cx, n, 6, where, "C_scale", "C_zero_point");
  const quantized_value acc = integer_mul(cx, where, a, &b, nullptr, internal_output(cx));
  quantize_to_output(cx, n, 0, where, acc, out_q.scale, out_q.zero_point, out_q.type);
}

void lower_qlinear_function(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  const quantized_value x = qoperator_input(cx, n, 0, 1, 2, where, "X");
  const output_quantization out_q = qoperator_output(cx, n, 3, where, "Y_scale", "Y_zero_point");
  quantize_to_output(cx, n, 0, where, with_function(n, where, x), out_q.scale, out_q.zero_point, out_q.type);
}

void lower_float_function(lowering_context&, const onnx::NodeProto& n, const node_context& where) {
  // lower_on_dequantized takes the quantized case; here the input is an integer tensor.
  where.fail("unsupported operator on an integer tensor: onnx2hpp reads " + n.op_type() +
             " only in quantized graphs (between DequantizeLinear and QuantizeLinear)");
}

void lower_qlinear_concat(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  if (n.input_size() < 5 || (n.input_size() - 2) % 3 != 0)
    where.fail("inputs must be Y_scale, Y_zero_point, then (X, X_scale, X_zero_point) for each input");
  const output_quantization out_q = qoperator_output(cx, n, 0, where, "Y_scale", "Y_zero_point");
  if (out_q.type != tessera::dtype::s8 && out_q.type != tessera::dtype::u8)
    where.fail("the output zero point must be int8 or uint8, not " + c_type_name(out_q.type));
  if (!has_attribute(n, "axis")) where.fail("missing attribute 'axis'");
  std::vector<tensor_ref> parts;
  dims y;
  int axis = 0;
  for (int i = 2; i < n.input_size(); i += 3) {
    const std::string role = fmt::format("input {}", (i - 2) / 3);
    const quantized_value x = qoperator_input(cx, n, i, i + 1, i + 2, where, role);
    const dims xs = cx.ir().tensors[static_cast<std::size_t>(x.tensor)].shape;
    if (i == 2) {
      axis = normalize_axis(int_attribute(n, "axis", 0), xs.size(), where);
      y = xs;
    } else {
      bool agree = xs.size() == y.size();
      for (std::size_t d = 0; agree && d < xs.size(); ++d) agree = static_cast<int>(d) == axis || xs[d] == y[d];
      if (!agree) where.fail(role + " " + to_string(xs) + " does not match " + to_string(y) + " outside the axis");
      y[static_cast<std::size_t>(axis)] += xs[static_cast<std::size_t>(axis)];
    }
    if (is_identity(x, out_q.scale, out_q.zero_point, out_q.type)) {
      parts.push_back(x.tensor);
      continue;
    }
    // An input in another quantization is requantized to the output's first.
    const tensor_ref t = cx.new_tensor(xs);
    emit_requant(cx, {fmt::format("{}_requant_{}", where.name, (i - 2) / 3), where.op}, x, out_q.scale,
                 out_q.zero_point, out_q.type, t);
    parts.push_back(t);
  }
  const tensor_ref out = cx.define_output(n, 0, y, where);
  cx.add_node(where, ops::concat{axis}, std::move(parts), {out});
}

namespace {
void qlinear_average(lowering_context& cx, const onnx::NodeProto& n, const node_context& where, bool global) {
  if (int_attribute(n, "channels_last", 0) != 0) where.fail("channels_last = 1 is not supported");
  const quantized_value x = qoperator_input(cx, n, 0, 1, 2, where, "X");
  const output_quantization out_q = qoperator_output(cx, n, 3, where, "y_scale", "y_zero_point");
  const quantized_value acc = integer_average(cx, n, where, x, global, internal_output(cx));
  quantize_to_output(cx, n, 0, where, acc, out_q.scale, out_q.zero_point, out_q.type);
}
}  // namespace

void lower_qlinear_average_pool(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  qlinear_average(cx, n, where, false);
}
void lower_qlinear_global_average_pool(lowering_context& cx, const onnx::NodeProto& n, const node_context& where) {
  qlinear_average(cx, n, where, true);
}

}  // namespace tessera::onnx2hpp
