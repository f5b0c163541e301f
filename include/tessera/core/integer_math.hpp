// Integer helpers shared by kernels: floor division (average pools, normalizations) and the
// integer square root both integer normalizations (iRMSNorm, iLayerNorm) divide by.
//
//     floor_div(-7, 2) = -4   (C++ `/` truncates toward zero: -3)
//     isqrt(v) = floor(sqrt(v))        e.g. isqrt(15) = 3, isqrt(16) = 4, isqrt(2^63 - 1) = 3037000499
//
// Digit by digit in base 4 (two bits of `v` per step, one bit of the root): shifts, adds and
// compares only, exact for every 64-bit value, constexpr. A float sqrt would be faster where
// there is an FPU, but rounds for values above 2^53 and is not available on every target.
#pragma once

#include <cstdint>

namespace tessera {

/// floor(a / b) for b > 0.
constexpr std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  const std::int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

/// floor(sqrt(v)) for any v >= 0 (32 iterations at most).
constexpr std::uint64_t isqrt(std::uint64_t v) {
  std::uint64_t root = 0;
  std::uint64_t bit = std::uint64_t{1} << 62;  // the highest power of four
  while (bit > v) bit >>= 2;
  while (bit != 0) {
    if (v >= root + bit) {
      v -= root + bit;
      root = (root >> 1) + bit;
    } else {
      root >>= 1;
    }
    bit >>= 2;
  }
  return root;
}

static_assert(floor_div(-7, 2) == -4 && floor_div(7, 2) == 3 && floor_div(-8, 2) == -4);
static_assert(isqrt(0) == 0 && isqrt(1) == 1 && isqrt(3) == 1 && isqrt(4) == 2 && isqrt(15) == 3 && isqrt(16) == 4);
static_assert(isqrt(0x7fffffffffffffffULL) == 3037000499ULL && isqrt(0xffffffffffffffffULL) == 4294967295ULL);

}  // namespace tessera
