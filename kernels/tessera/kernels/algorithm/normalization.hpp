// iRMSNorm and iLayerNorm written once for every family but the reference (the judge).
//
// The reference (reference/normalization.hpp) divides each value's product (x - mean) * w by the
// row's root in 64 bits: on a 32-bit core a library division per value (about a hundred
// Cortex-M4 instructions each, most of a decoder's norm). Here the divisor is prepared once per
// row (invariant_divisor: a multiply and a shift per value, exact), and where every product fits
// 31 bits (decided at compile time from the node's weights: 8-bit inputs keep |x - mean| <= 255)
// the products and the sums of squares stay in 32 bits. iNoNorm (no division) and rows whose
// products may not fit run the reference. Bit-exact with it; tests/kernels checks it on
// randomized rows, weights and constants, extremes included.
#pragma once

#include <cstdint>

#include <tessera/core/integer_math.hpp>
#include <tessera/kernels/reference/normalization.hpp>

namespace tessera::kernels::algorithm {

/// floor(n / d) for a divisor d >= 1 fixed over many numerators |n| < 2^31 (Granlund and
/// Montgomery's round-up method with N = 31): with l = ceil(log2 d) and m = ceil(2^(31+l) / d),
/// m * d - 2^(31+l) < d <= 2^l, so floor(n / d) = (n * m) >> (31 + l) for 0 <= n < 2^31; m < 2^32
/// and the product stays below 2^63. A negative n is floor(n / d) = -floor((-n - 1) / d) - 1.
class invariant_divisor {
 public:
  constexpr explicit invariant_divisor(std::uint32_t d) {
    int l = 0;
    while ((std::uint64_t{1} << l) < d) ++l;
    shift_ = 31 + l;
    magic_ = static_cast<std::uint32_t>(((std::uint64_t{1} << shift_) + d - 1) / d);
  }
  constexpr std::int32_t floor_divide(std::int32_t n) const {
    if (n >= 0) return quotient(static_cast<std::uint32_t>(n));
    return -quotient(static_cast<std::uint32_t>(-(n + 1))) - 1;
  }

 private:
  constexpr std::int32_t quotient(std::uint32_t n) const {
    return static_cast<std::int32_t>((std::uint64_t{n} * magic_) >> shift_);
  }
  std::uint32_t magic_ = 1;
  int shift_ = 31;
};

/// The largest |value| of a constant's values (0 for none).
template <class Values>
constexpr std::int64_t largest_magnitude(const Values& values) {
  std::int64_t m = 0;
  for (const auto v : values) m = v < 0 ? (-std::int64_t{v} > m ? -std::int64_t{v} : m) : (v > m ? v : m);
  return m;
}

/// Whether |x - mean| * w fits 31 bits for every 8-bit input when no weight exceeds
/// `largest_weight` in magnitude (the 32-bit path below).
constexpr bool norm_products_fit_32(std::int64_t largest_weight) { return 255 * largest_weight < (std::int64_t{1} << 31); }

/// reference::integer_norm for 8-bit inputs. `ProductsFit32`: norm_products_fit_32 of the
/// node's weights (else the reference runs).
template <bool ProductsFit32, class TIn, class TOut>
void integer_norm(std::int64_t rows, std::int32_t length, std::int64_t first_row, const TIn* x,
                  const std::int32_t* weight, const std::int32_t* bias, const reference::norm_params& p, TOut* y) {
  static_assert(sizeof(TIn) == 1, "integer_norm: the input must be an 8-bit integer (int8 or uint8)");
  // Sums of squares of |d| <= 255 fit 32 bits up to 33,025 values a row.
  if (!ProductsFit32 || p.kind == reference::norm_kind::no_norm || length > 32768) {
    reference::integer_norm(rows, length, first_row, x, weight, bias, p, y);
    return;
  }
  for (std::int64_t r = 0; r < rows; ++r, x += length, y += length) {
    const std::int32_t* w = weight + (first_row + r) % p.weight_rows * length;
    const std::int32_t* b = bias == nullptr ? nullptr : bias + (first_row + r) % p.bias_rows * length;
    std::int32_t mean = 0;
    if (p.kind == reference::norm_kind::layer) {
      std::int32_t sum = 0;
      for (std::int32_t j = 0; j < length; ++j) sum += x[j];
      mean = static_cast<std::int32_t>(floor_div(sum, length));
    }
    std::uint32_t squares = 0;
    for (std::int32_t j = 0; j < length; ++j) {
      const std::int32_t d = x[j] - mean;
      squares += static_cast<std::uint32_t>(d * d);
    }
    // The root of a mean square of values within 255 is at most 255.
    const invariant_divisor root(static_cast<std::uint32_t>(isqrt(squares / static_cast<std::uint32_t>(length) + 1)));
    for (std::int32_t j = 0; j < length; ++j) {
      const std::int64_t v =
          std::int64_t{root.floor_divide((x[j] - mean) * w[j])} + (b == nullptr ? 0 : b[j]);
      y[j] = static_cast<TOut>(reference::detail::clamp(v >> p.shift, p.lo, p.hi));
    }
  }
}

}  // namespace tessera::kernels::algorithm
