// Requantization in kernel epilogues, without `requant_params::apply`'s per-element division.
//
// Optimized kernels know which output channel (or row) they are writing, so they look the
// parameters up directly. The rule is `requantize` (../../core/requant.hpp) exactly; the
// accumulator is int32 here, which lets the compiler use one 32x32->64 multiply (SMULL on Arm).
#pragma once

#include <cstdint>

#include <tessera/core/requant.hpp>

namespace tessera::kernels {

/// Whether `rq` is disabled, per tensor, or per channel of a channels-last output with
/// `channels` channels: the layouts `channel_requant` handles.
constexpr bool is_channelwise(const requant_params& rq, int channels) {
  return !rq.enabled || rq.length == 1 || (rq.inner == 1 && rq.length == channels);
}

/// Whether `rq` is per row of an {rows, cols} output (a Gemm requantized per output row).
constexpr bool is_rowwise(const requant_params& rq, int rows, int cols) {
  return rq.enabled && rq.length == rows && rq.inner == cols && rq.length != 1;
}

/// y = clamp((acc * mul + add + 2^(shift-1)) >> shift, lo, hi) with a 32-bit accumulator.
constexpr std::int32_t requantize32(std::int32_t acc, std::int32_t mul, std::int32_t add, int shift,
                                    std::int32_t lo, std::int32_t hi) {
  const std::int64_t rounding = shift > 0 ? (std::int64_t{1} << (shift - 1)) : 0;
  std::int64_t y = (static_cast<std::int64_t>(acc) * mul + (add + rounding)) >> shift;
  if (y < lo) y = lo;
  if (y > hi) y = hi;
  return static_cast<std::int32_t>(y);
}

/// The requantization of channel `c` (per-channel layouts: see `is_channelwise`).
struct channel_requant {
  requant_params rq;

  /// `acc` requantized for channel `c`, or `acc` itself when requantization is disabled.
  constexpr std::int32_t operator()(std::int32_t acc, int c) const {
    if (!rq.enabled) return acc;
    const int k = rq.length == 1 ? 0 : c;
    return requantize32(acc, rq.mul[k], rq.add[k], rq.shift, rq.lo, rq.hi);
  }
};

}  // namespace tessera::kernels
