// The two rounding divisions of the Deeploy/QuantLib integer dialect, in one place.
//
//     divide_round_half_away(n, d) = (n + sign(n) * (d >> 1)) / d     (C division, truncating)
//     integer_mean(acc, L)         = (acc + 2^(s-1)) >> s              when L = 2^s
//                                  = divide_round_half_away(acc, L)    otherwise
//
// IntegerDiv rounds half away from zero; IntegerMean/ReduceMean do the same for a length that
// is not a power of two, and shift (half up, floor) for a power of two: -16 / 32 is 0 by the
// shift but -1 by the division. The corpus decides: Kernels/Integer/ReduceMean (L = 32) needs
// the shift (docs/semantics.md, "ReduceMean / IntegerMean").
#pragma once

#include <cstdint>

namespace tessera {

/// n / d rounded half away from zero (d > 0): 5 / 2 = 3, -5 / 2 = -3, 7 / 4 = 2, -7 / 4 = -2.
constexpr std::int64_t divide_round_half_away(std::int64_t n, std::int64_t d) {
  const std::int64_t half = d >> 1;
  return (n + (n < 0 ? -half : n > 0 ? half : 0)) / d;
}

/// log2(length) when `length` is a power of two, else -1.
constexpr int power_of_two_exponent(std::int64_t length) {
  if (length <= 0 || (length & (length - 1)) != 0) return -1;
  int s = 0;
  while ((std::int64_t{1} << s) < length) ++s;
  return s;
}

/// The mean of `length` values whose sum is `acc` (length >= 1), rounded as the dialect does.
constexpr std::int64_t integer_mean(std::int64_t acc, std::int64_t length) {
  const int s = power_of_two_exponent(length);
  if (s == 0) return acc;
  if (s > 0) return (acc + (std::int64_t{1} << (s - 1))) >> s;
  return divide_round_half_away(acc, length);
}

}  // namespace tessera
