// ONNX QuantizeLinear and DequantizeLinear on the device, bit-exact with ONNX Runtime: the
// float ends of a model (a float graph input read by a QuantizeLinear, a float graph output
// written by a DequantizeLinear) that onnx2hpp --float-boundary keeps on the device.
//
//     quantize_linear:   q = saturate(round_half_to_even(x / scale) + zero_point)
//     dequantize_linear: x = float(int32(q) - zero_point) * scale
//
// Both in float32, as ONNX Runtime (MLAS) computes them:
// - `x / scale` is a float32 division. Multiplying by a precomputed `1 / scale` is not the
//   same number: with scale = 0.1f, x = 1.55f gives x / scale = 15.499999 (-> 15) but
//   x * (1 / scale) = 15.5 (-> 16); x = 3.2500002f gives exactly 32.5 (-> 32) against 32.500004
//   (-> 33). IEEE division is correctly rounded in hardware (Cortex-M4F VDIV.F32, RISC-V F) and
//   in libgcc's soft-float `__divsf3` alike, so every target computes the same float.
// - The quotient is clamped to [qmin - zero_point, qmax - zero_point] in float first (MLAS's
//   MAXPS/MINPS, NEON's FMAXNM/FMINNM), then rounded, then the zero point is added: the clamp
//   bounds are small integers, exact in float, and a clamped value converts to int32 without
//   undefined behaviour. Clamping before rounding equals rounding before clamping, because the
//   bounds are integers and rounding is monotone.
// - NaN becomes qmin (the clamp's `!(v >= lo)` takes it to the lower bound), as ONNX Runtime
//   does: its MAXPS/FMAXNM return the non-NaN operand (measured with onnxruntime-node 1.30 on
//   x86-64, tensors of 1 to 37 elements, zero points 0, 3 and 128: NaN -> -128 for int8, 0 for
//   uint8). +inf saturates to qmax, -inf to qmin; so does any float beyond the range.
// - Rounding half to even is done on the float's own bits, not with std::nearbyint: it does not
//   depend on the floating-point environment's rounding mode (an RTOS or a library may leave it
//   changed; soft-float targets have none to set) and needs no libm. For |v| < 2^17 (every
//   clamped quotient of an 8- or 16-bit type) `t = int32(v)` truncates exactly, `v - t` is the
//   exact fraction (a float's fractional part is representable), and comparing it with 0.5
//   decides: above goes away from zero, a tie goes to the even neighbour.
// - Dequantize: the int32 difference is exact in float (|q - zp| < 2^17), and the one product
//   is correctly rounded; nothing is left for the compiler to contract into an FMA.
// A subnormal quotient (|x / scale| < 2^-126) rounds to 0 either way, so a core that flushes
// subnormals to zero (FPSCR.FZ) computes the same q unless x itself is subnormal and scale so
// small that the quotient is not (scales of real models are far from that).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace tessera {

namespace float_boundary_detail {

template <class Q>
constexpr bool is_quantized_type = std::is_integral_v<Q> && !std::is_same_v<Q, bool> && sizeof(Q) <= 2;

/// `v` (|v| < 2^23) rounded to the nearest integer, a tie to the even one; exact, no FP env.
constexpr std::int32_t round_half_even(float v) {
  const std::int32_t t = static_cast<std::int32_t>(v);  // toward zero
  const float fraction = v - static_cast<float>(t);      // exact, in (-1, 1), sign of v
  const bool odd = (t & 1) != 0;
  if (fraction > 0.5f || (fraction == 0.5f && odd)) return t + 1;
  if (fraction < -0.5f || (fraction == -0.5f && odd)) return t - 1;
  return t;
}

}  // namespace float_boundary_detail

/// ONNX QuantizeLinear of one float: `saturate(round_half_to_even(x / scale) + zero_point)`,
/// computed as ONNX Runtime does (file comment). `Q`: an 8- or 16-bit integer type (int8 and
/// uint8 are what ONNX quantizes activations to); `scale` > 0 and finite; `zero_point` within
/// `Q`'s range. NaN gives Q's minimum, +-inf and out-of-range values saturate.
/// Examples (int8, scale 1, zero point 0): 0.5 -> 0, 1.5 -> 2, -0.5 -> 0, -2.5 -> -2,
/// 127.5 -> 127, -1e30 -> -128, NaN -> -128.
template <class Q>
constexpr Q quantize_linear(float x, float scale, std::int32_t zero_point) {
  static_assert(float_boundary_detail::is_quantized_type<Q>,
                "quantize_linear: Q must be an 8- or 16-bit integer type");
  constexpr std::int32_t qmin = std::numeric_limits<Q>::min();
  constexpr std::int32_t qmax = std::numeric_limits<Q>::max();
  const float lo = static_cast<float>(qmin - zero_point);  // exact: |lo|, |hi| < 2^17
  const float hi = static_cast<float>(qmax - zero_point);
  float v = x / scale;          // a division, as ONNX Runtime: not x * (1 / scale)
  if (!(v >= lo)) v = lo;       // below the range, -inf and NaN
  if (v > hi) v = hi;           // above the range, +inf
  return static_cast<Q>(float_boundary_detail::round_half_even(v) + zero_point);
}

/// A fake-quantized input as the model computes it in float32 (a Brevitas-style export: Div by
/// `scale` or, with `multiply`, Mul by it; Add `zero_point`; Round half to even; Clip to
/// [lo, hi]; Cast): `clip(round_half_to_even(fl(fl(x / scale) + zero_point)), lo, hi)`, also
/// clipped to Q's range. Unlike QuantizeLinear the zero point is added before rounding: with an
/// odd zero point a tie rounds the other way (x / scale = 0.5, zero point 1: 1.5 -> 2, where
/// QuantizeLinear gives 0 + 1), and the sum is a float32 rounding of its own. Clipping before
/// rounding equals the model's rounding before clipping (integer bounds, monotone rounding).
/// NaN gives the lower bound (the model's Cast of a NaN is undefined).
template <class Q>
constexpr Q quantize_fake(float x, float scale, bool multiply, std::int32_t zero_point, std::int32_t lo,
                          std::int32_t hi) {
  static_assert(float_boundary_detail::is_quantized_type<Q>, "quantize_fake: Q must be an 8- or 16-bit integer type");
  constexpr std::int32_t qmin = std::numeric_limits<Q>::min();
  constexpr std::int32_t qmax = std::numeric_limits<Q>::max();
  const float low = static_cast<float>(lo > qmin ? lo : qmin);
  const float high = static_cast<float>(hi < qmax ? hi : qmax);
  float v = multiply ? x * scale : x / scale;
  // Two roundings, as the model's two ops: no fused multiply-add (GCC contracts `x * s + z`
  // across statements on FMA targets unless the product is seen to leave a register).
  if (!std::is_constant_evaluated()) __asm__("" : "+m"(v));
  v = v + static_cast<float>(zero_point);
  if (!(v >= low)) v = low;  // below the range, -inf and NaN
  if (v > high) v = high;
  return static_cast<Q>(float_boundary_detail::round_half_even(v));
}

/// ONNX DequantizeLinear of one integer: `float(int32(q) - zero_point) * scale` in float32.
template <class Q>
constexpr float dequantize_linear(Q q, float scale, std::int32_t zero_point) {
  static_assert(float_boundary_detail::is_quantized_type<Q>,
                "dequantize_linear: Q must be an 8- or 16-bit integer type");
  return static_cast<float>(static_cast<std::int32_t>(q) - zero_point) * scale;
}

/// The reverse of a fake quantization by division (Sub the zero point, Div by `scale`):
/// `float(int32(q) - zero_point) / scale` in float32 (the difference exact, one rounding).
template <class Q>
constexpr float dequantize_divide(Q q, float scale, std::int32_t zero_point) {
  static_assert(float_boundary_detail::is_quantized_type<Q>, "dequantize_divide: Q must be an 8- or 16-bit integer type");
  return static_cast<float>(static_cast<std::int32_t>(q) - zero_point) / scale;
}

/// `count` floats `x` quantized into `q` (per tensor: one scale and zero point).
template <class Q>
constexpr void quantize_linear(const float* x, Q* q, std::size_t count, float scale, std::int32_t zero_point) {
  for (std::size_t i = 0; i < count; ++i) q[i] = quantize_linear<Q>(x[i], scale, zero_point);
}

/// `count` integers `q` dequantized into `x` (per tensor: one scale and zero point).
template <class Q>
constexpr void dequantize_linear(const Q* q, float* x, std::size_t count, float scale, std::int32_t zero_point) {
  for (std::size_t i = 0; i < count; ++i) x[i] = dequantize_linear<Q>(q[i], scale, zero_point);
}

}  // namespace tessera
