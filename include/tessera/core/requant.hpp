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
