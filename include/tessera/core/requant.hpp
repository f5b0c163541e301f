// The RequantShift rule of the Deeploy/QuantLib integer dialect, in one place.
//
//     y = clamp((x * mul + add + 2^(shift-1)) >> shift, lo, hi)
//
// `>>` is an arithmetic shift (floor), so the rounding is half-up; both half-to-even and plain
// floor fail the corpus golden data (../../../docs/semantics.md). `x * mul + add` needs 64 bits
// in general: `mul` reaches 1.3e8 in the corpus.
#pragma once

#include <cstdint>

namespace tessera {

/// Requantizes one accumulator. `shift` in [0, 62]; `lo <= hi`.
constexpr std::int32_t requantize(std::int64_t acc, std::int32_t mul, std::int32_t add, int shift,
                                  std::int32_t lo, std::int32_t hi) {
  const std::int64_t rounding = shift > 0 ? (std::int64_t{1} << (shift - 1)) : 0;
  std::int64_t y = (acc * mul + add + rounding) >> shift;
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
struct requant_params {
  bool enabled = false;
  const std::int32_t* mul = nullptr;
  const std::int32_t* add = nullptr;
  std::int32_t length = 1;
  std::int32_t inner = 1;
  int shift = 0;
  std::int32_t lo = 0;
  std::int32_t hi = 0;

  constexpr std::int32_t apply(std::int64_t acc, std::int64_t flat_index) const {
    if (!enabled) return static_cast<std::int32_t>(acc);
    const auto k = static_cast<std::int32_t>((flat_index / inner) % length);
    return requantize(acc, mul[k], add[k], shift, lo, hi);
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
