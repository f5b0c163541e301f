// The RequantShift rule, in one place, with its two rounding modes.
//
//     y = clamp(round(x * mul + add, shift), lo, hi)
//
// `rounding::half_up` (the Deeploy/QuantLib dialect and every requantization of standard ONNX
// except the means below) is `(t + 2^(shift-1)) >> shift`, an arithmetic shift (floor): both
// half-to-even and plain floor fail the corpus golden data (../../../docs/semantics.md).
// `rounding::half_even` is ONNX QuantizeLinear's `round_half_to_even(x / s) + zero_point`: a
// tie goes to the result `y` with `y - zero_point` even. onnx2hpp chooses it for the average
// pools and means of standard ONNX, where a window of 4 equal-scale values ties on a quarter of
// the outputs (sum/4 = k + 1/2) and half up reads one unit more than ONNX on half of those.
// `x * mul + add` needs 64 bits in general: `mul` reaches 1.3e8 in the corpus.
//
// A `divisor` above 1 (only for such means) divides by `divisor * 2^shift` instead: the mean of
// a window of 6 or 12 cells (2x3, 3x4, a 6x6 global pool) of equal scales is M = 1/count, which
// no mul / 2^shift equals, so its exact ties would become near ties; with count = odd * 2^e,
// mul / (odd * 2^shift) equals M exactly (docs/semantics.md, "Rounding of means").
#pragma once

#include <cstdint>

namespace tessera {

/// How `requantize` rounds `t / 2^shift` to an integer (only ties differ).
enum class rounding : std::uint8_t {
  half_up,    ///< floor(t / 2^shift + 1/2): -1.5 -> -1, 0.5 -> 1, 1.5 -> 2 (the corpus rule)
  half_even,  ///< to nearest, a tie to the y with y - zero_point even (ONNX QuantizeLinear)
};

/// `t / 2^shift` rounded by `mode` (`shift` in [0, 62]). `zero_point` matters only for
/// half_even ties: ONNX rounds `x / s` before adding the zero point, so with zero_point = 1 the
/// tie 2.5 (that is 1.5 + 1) goes to 3 (2 + 1), not 2. Examples with shift = 2 (t / 4):
/// t = 6 (1.5) gives 2 either way; t = 10 (2.5) gives 3 half up, 2 half even (zero_point 0),
/// 3 half even with zero_point 1; t = -6 (-1.5) gives -1 half up, -2 half even.
constexpr std::int64_t round_shift(std::int64_t t, int shift, rounding mode = rounding::half_up,
                                   std::int32_t zero_point = 0) {
  if (shift <= 0) return t;
  const std::int64_t half = std::int64_t{1} << (shift - 1);
  if (mode == rounding::half_up) return (t + half) >> shift;
  const std::int64_t q = t >> shift;         // floor
  const std::int64_t rem = t - q * (half * 2);  // in [0, 2^shift)
  const bool up = rem > half || (rem == half && ((q - zero_point) & 1) != 0);
  return q + (up ? 1 : 0);
}

/// `t / (divisor * 2^shift)` rounded by `mode` as round_shift rounds `t / 2^shift`, for
/// `divisor * 2^shift < 2^61` (a divisor of 0 or 1 divides by 2^shift alone). Example: t = 9, divisor 3, shift 1 (9 / 6 =
/// 1.5) gives 2 half up and half even (zero_point 0); t = 15 (2.5) gives 3 half up, 2 half even.
constexpr std::int64_t round_divide(std::int64_t t, std::int32_t divisor, int shift, rounding mode = rounding::half_up,
                                    std::int32_t zero_point = 0) {
  if (divisor <= 1) return round_shift(t, shift, mode, zero_point);
  const std::int64_t d = std::int64_t{divisor} << shift;
  std::int64_t q = t / d;
  std::int64_t rem = t - q * d;
  if (rem < 0) rem += d, --q;  // floor, rem in [0, d)
  const bool up = mode == rounding::half_up
                      ? 2 * rem >= d
                      : 2 * rem > d || (2 * rem == d && ((q - zero_point) & 1) != 0);
  return q + (up ? 1 : 0);
}

/// Requantizes one accumulator. `shift` in [0, 62]; `lo <= hi`; `divisor` as round_divide's.
constexpr std::int32_t requantize(std::int64_t acc, std::int32_t mul, std::int32_t add, int shift,
                                  std::int32_t lo, std::int32_t hi, rounding mode = rounding::half_up,
                                  std::int32_t zero_point = 0, std::int32_t divisor = 1) {
  std::int64_t y = round_divide(acc * mul + add, divisor, shift, mode, zero_point);
  if (y < lo) y = lo;
  if (y > hi) y = hi;
  return static_cast<std::int32_t>(y);
}

/// Run-time view of a requantization fused into a kernel's epilogue (or a standalone
/// RequantShift). `mul`/`add` have `length` entries; the entry used for the element at flat
/// (row-major, physical) output index `i` is `(i / inner) % length`:
///   per-tensor: length 1;  per-channel of a channels-last tensor: length C, inner 1;
///   per-row of a (M, N) matrix: length M, inner N.
/// `enabled == false` means "no requantization": the kernel stores the raw int32 accumulator.
/// `mode` and `zero_point` are `requantize`'s rounding; the optimized kernel families implement
/// half_up only, so `kernels::choose_*` runs the reference kernel for a half_even requantization
/// (or one with a divisor).
struct requant_params {
  bool enabled = false;
  const std::int32_t* mul = nullptr;
  const std::int32_t* add = nullptr;
  std::int32_t length = 1;
  std::int32_t inner = 1;
  int shift = 0;
  std::int32_t lo = 0;
  std::int32_t hi = 0;
  rounding mode = rounding::half_up;
  std::int32_t zero_point = 0;  ///< half_even only: ties go to the y with y - zero_point even
  /// > 1 only for exact means: y = round(t / (divisor * 2^shift)); 0 (the default) or 1: none.
  /// 0 rather than 1 keeps a value-initialised requant_params all zeros: the arm_dsp epilogue
  /// plan copies one per kernel call, and a default of 1 made that copy load a template from
  /// flash (+40 instructions on a 10-output Gemm, +0.3% on a 128-output one, on the M4).
  std::int32_t divisor = 0;

  constexpr std::int32_t apply(std::int64_t acc, std::int64_t flat_index) const {
    if (!enabled) return static_cast<std::int32_t>(acc);
    // Per-tensor parameters (length 1) need no index arithmetic: no 64-bit division per element,
    // a library call on 32-bit cores.
    const auto k = length == 1 ? 0 : static_cast<std::int32_t>((flat_index / inner) % length);
    return requantize(acc, mul[k], add[k], shift, lo, hi, mode, zero_point, divisor);
  }
};

}  // namespace tessera

namespace tessera {

/// The requantization of one output tile of an [.., H, W, C] map whose tile starts at row
/// `y0`, channel `c0` and is `c` channels wide: per-tensor parameters are unchanged,
/// per-channel ones (inner 1) start at `c0`, per-row ones of a Gemm (inner = C) start at `y0`
/// and advance every `c` elements. Other layouts are not tiled (see `requant_tiles`).
constexpr requant_params requant_for_tile(requant_params rq, int total_channels, int y0, int c0, int rows, int c) {
  if (!rq.enabled || rq.length == 1) return rq;
  if (rq.inner == 1) {
    rq.mul += c0;
    rq.add += c0;
    rq.length = c;
    (void)total_channels;
    return rq;
  }
  rq.mul += y0;
  rq.add += y0;
  rq.inner = c;
  rq.length = rows;
  return rq;
}

/// Whether `requant_for_tile` can express a tile of this requantization (per tensor, per last
/// axis, or per row of a {M, N} output with one column per tile row).
constexpr bool requant_tiles(std::int32_t length, std::int32_t inner, int channels, int width) {
  return length == 1 || inner == 1 || (inner == channels && width == 1);
}

}  // namespace tessera
