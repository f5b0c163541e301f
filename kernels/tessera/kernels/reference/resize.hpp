// Reference Resize (ONNX Resize, modes "nearest" and "linear") of an NHWC map over H and W.
//
// Semantics: ../../../../docs/semantics.md ("Resize"). Everything is integer: the scale of
// an axis is the exact ratio out / in of its extents, so the input coordinate of an output
// index is an exact fraction (`resize_source_coordinate`); nearest rounds that fraction,
// linear turns its fractional part into a weight of `resize_weight_bits` fraction bits
// (`resize_tap_of`). Both are the one place of these formulas (onnx2hpp only picks the modes).
//
// Worked example, half_pixel, in = 3, out = 7 (x = ((2o + 1) * 3 - 7) / 14):
//   o = 0: x = -4/14, clamped to 0        -> lo 0, hi 1, weight 0
//   o = 3: x = 14/14 = 1                  -> lo 1, hi 2, weight 0
//   o = 4: x = 20/14 = 1 + 6/14           -> lo 1, hi 2, weight round(6/14 * 2048) = 878
#pragma once

#include <cstddef>
#include <cstdint>

#include <tessera/core/integer_math.hpp>

namespace tessera::kernels::reference {

enum class resize_mode : std::uint8_t { nearest, linear };

/// ONNX coordinate_transformation_mode: the input coordinate x of output index o, with
/// scale = out / in (exact):
///   half_pixel           x = (o + 1/2) / scale - 1/2
///   pytorch_half_pixel   the same, but x = 0 when out == 1
///   align_corners        x = o * (in - 1) / (out - 1), x = 0 when out == 1
///   asymmetric           x = o / scale
/// (tf_half_pixel_for_nn is left out: it moves an axis of scale 1 by half an element, which ONNX
/// Runtime does not do, so there is no one reference to be exact with.)
enum class resize_coordinates : std::uint8_t { half_pixel, pytorch_half_pixel, align_corners, asymmetric };

/// ONNX nearest_mode: which input index a fractional coordinate of mode nearest takes.
enum class resize_nearest_rounding : std::uint8_t { round_prefer_floor, round_prefer_ceil, floor, ceil };

/// Fraction bits of the linear weights. 11 bits keep the sum of four 8-bit values times
/// weights of 2^22 in total in int32 (255 * 2^22 + 2^21 < 2^31), and the error of each
/// weight (at most 2^-12) moves a result by at most 255 * 2 * 2^-12 < 1/8 of a unit.
inline constexpr int resize_weight_bits = 11;
inline constexpr std::int32_t resize_weight_one = std::int32_t{1} << resize_weight_bits;

/// An input coordinate as the exact fraction numerator / denominator (denominator > 0).
struct resize_fraction {
  std::int64_t numerator = 0;
  std::int64_t denominator = 1;
};

/// The input coordinate of output index `o` of an axis resized from `in` to `out` elements.
constexpr resize_fraction resize_source_coordinate(resize_coordinates c, std::int64_t o, std::int64_t in,
                                                   std::int64_t out) {
  switch (c) {
    case resize_coordinates::pytorch_half_pixel:
      if (out == 1) return {0, 1};
      [[fallthrough]];
    case resize_coordinates::half_pixel: return {(2 * o + 1) * in - out, 2 * out};
    case resize_coordinates::align_corners:
      if (out == 1) return {0, 1};
      return {o * (in - 1), out - 1};
    case resize_coordinates::asymmetric: return {o * in, out};
  }
  return {0, 1};
}

/// What one output index of an axis reads: input indices `lo` and `hi` (in [0, in)) and the
/// weight of `hi` in units of 2^-resize_weight_bits (that of `lo` is resize_weight_one minus
/// it). Nearest: lo == hi, weight 0.
struct resize_tap {
  int lo = 0;
  int hi = 0;
  std::int32_t weight_hi = 0;
};

/// The tap of output index `o` (the rule of docs/semantics.md, "Resize"):
/// - nearest: i = floor(x), plus 1 when the remainder r = x - floor(x) asks for it (ceil: r > 0;
///   round_prefer_floor: r > 1/2; round_prefer_ceil: r >= 1/2), clamped to [0, in - 1];
/// - linear: x clamped to [0, in - 1]; lo = floor(x), hi = min(lo + 1, in - 1),
///   weight_hi = floor(r * 2^bits + 1/2) (the fraction rounded half up, exactly).
constexpr resize_tap resize_tap_of(resize_mode mode, resize_coordinates c, resize_nearest_rounding rounding, int o,
                                   int in, int out) {
  const auto [numerator, denominator] = resize_source_coordinate(c, o, in, out);
  const std::int64_t last = in - 1;
  if (mode == resize_mode::nearest) {
    const std::int64_t whole = floor_div(numerator, denominator);
    const std::int64_t twice_remainder = 2 * (numerator - whole * denominator);  // 2r, in units of 1/denominator
    bool up = false;
    switch (rounding) {
      case resize_nearest_rounding::floor: up = false; break;
      case resize_nearest_rounding::ceil: up = twice_remainder > 0; break;
      case resize_nearest_rounding::round_prefer_floor: up = twice_remainder > denominator; break;
      case resize_nearest_rounding::round_prefer_ceil: up = twice_remainder >= denominator; break;
    }
    std::int64_t i = whole + (up ? 1 : 0);
    i = i < 0 ? 0 : (i > last ? last : i);
    return {static_cast<int>(i), static_cast<int>(i), 0};
  }
  std::int64_t clamped = numerator < 0 ? 0 : numerator;
  if (clamped > last * denominator) clamped = last * denominator;
  const std::int64_t lo = clamped / denominator;
  const std::int64_t remainder = clamped - lo * denominator;
  const std::int64_t hi = lo + 1 > last ? last : lo + 1;
  const std::int64_t weight = (remainder * (std::int64_t{2} * resize_weight_one) + denominator) / (2 * denominator);
  return {static_cast<int>(lo), static_cast<int>(hi), static_cast<std::int32_t>(weight)};
}

struct resize_dims {
  int batch = 1, in_h = 1, in_w = 1, channels = 1;
  int out_h = 1, out_w = 1;
  resize_mode mode = resize_mode::nearest;
  resize_coordinates coordinates = resize_coordinates::asymmetric;
  resize_nearest_rounding nearest = resize_nearest_rounding::floor;
};

/// Scratch needed by `resize`: none (the taps are recomputed per row and per column).
constexpr std::size_t resize_scratch_bytes(const resize_dims&) { return 0; }

/// out[n][oy][ox][c] from in[n][.][.][c]:
/// - nearest: in[n][tap_y.lo][tap_x.lo][c];
/// - linear: with wy = tap_y.weight_hi, wx = tap_x.weight_hi, one = 2^bits,
///     acc = (in[lo_y][lo_x] (one - wx) + in[lo_y][hi_x] wx) (one - wy)
///         + (in[hi_y][lo_x] (one - wx) + in[hi_y][hi_x] wx) wy
///   out = (acc + 2^(2 bits - 1)) >> 2 bits   (rounded half up; always within T's range).
///
/// - `in`:  NHWC [batch][in_h][in_w][channels], int8 or uint8 (the zero point is the same on
///          both sides, so the quantized values interpolate as they are).
/// - `out`: NHWC [batch][out_h][out_w][channels]; must not alias `in`.
template <class T>
constexpr void resize(const resize_dims& d, const T* in, T* out) {
  static_assert(sizeof(T) == 1, "resize: 8-bit values only (the linear sum is int32)");
  constexpr int shift = 2 * resize_weight_bits;
  constexpr std::int32_t half = std::int32_t{1} << (shift - 1);
  const std::int64_t in_row = std::int64_t{d.in_w} * d.channels;
  const std::int64_t in_image = in_row * d.in_h;
  for (int n = 0; n < d.batch; ++n) {
    const T* image = in + n * in_image;
    for (int oy = 0; oy < d.out_h; ++oy) {
      const resize_tap ty = resize_tap_of(d.mode, d.coordinates, d.nearest, oy, d.in_h, d.out_h);
      const T* row_lo = image + ty.lo * in_row;
      const T* row_hi = image + ty.hi * in_row;
      for (int ox = 0; ox < d.out_w; ++ox) {
        const resize_tap tx = resize_tap_of(d.mode, d.coordinates, d.nearest, ox, d.in_w, d.out_w);
        const std::int64_t lo_x = std::int64_t{tx.lo} * d.channels;
        const std::int64_t hi_x = std::int64_t{tx.hi} * d.channels;
        if (d.mode == resize_mode::nearest) {
          for (int c = 0; c < d.channels; ++c) out[c] = row_lo[lo_x + c];
        } else {
          const std::int32_t wy = ty.weight_hi, wx = tx.weight_hi;
          for (int c = 0; c < d.channels; ++c) {
            const std::int32_t top = row_lo[lo_x + c] * (resize_weight_one - wx) + row_lo[hi_x + c] * wx;
            const std::int32_t bottom = row_hi[lo_x + c] * (resize_weight_one - wx) + row_hi[hi_x + c] * wx;
            out[c] = static_cast<T>((top * (resize_weight_one - wy) + bottom * wy + half) >> shift);
          }
        }
        out += d.channels;
      }
    }
  }
}

}  // namespace tessera::kernels::reference
