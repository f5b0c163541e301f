// iSoftmax with its exponential as a compile-time table, written once for every family.
//
// The reference (reference/softmax.hpp) computes I-BERT's polynomial exponential of each
// xt = x - max(row) in 64 bits, twice per value, and divides in 64 bits: on a 32-bit core that
// is two library divisions per value (~320 Cortex-M4 instructions per value, most of a decoder
// step's attention at a long context). With 8-bit inputs xt takes 256 values only, and the
// constants are the node's, known at compile time: the table holds e(d) for d = max - x in
// [0, 255], so a value costs a load, an add and, where the product e * (n_levels - 1) fits 32
// bits for every entry (decided at compile time), one 32-bit division. Bit-exact with the
// reference by construction (the table is the reference's own function); tests/kernels checks it
// on randomized rows and constants.
#pragma once

#include <array>
#include <cstdint>

#include <tessera/kernels/reference/softmax.hpp>

namespace tessera::kernels::algorithm {

/// e(d) = reference::detail::i_softmax_exp(-d, P) for the 256 distances below a row's maximum.
template <reference::softmax_params P>
struct i_softmax_table {
  static constexpr std::array<std::uint32_t, 256> e = [] {
    std::array<std::uint32_t, 256> t{};
    for (int d = 0; d < 256; ++d) t[std::size_t(d)] = static_cast<std::uint32_t>(reference::detail::i_softmax_exp(-d, P));
    return t;
  }();
  /// Every e(d) * (n_levels - 1) fits 32 bits: the output's division can be a 32-bit one.
  static constexpr bool product_fits_32 = [] {
    for (std::uint32_t v : e)
      if (std::uint64_t{v} * std::uint64_t(P.n_levels - 1) > 0xffffffffull) return false;
    return true;
  }();
};

/// reference::integer_softmax for 8-bit inputs, iSoftmax through the table; ITAMax and
/// ITAPartialMax (shifts and one 32-bit division per row already) run the reference.
template <reference::softmax_params P, class TIn>
void integer_softmax(std::int64_t rows, std::int32_t length, const TIn* x, std::uint8_t* y) {
  static_assert(sizeof(TIn) == 1, "integer_softmax: the input must be an 8-bit integer (int8 or uint8)");
  if constexpr (P.kind != reference::softmax_kind::i_softmax) {
    reference::integer_softmax(rows, length, x, P, y);
  } else {
    using table = i_softmax_table<P>;
    constexpr std::uint32_t top = static_cast<std::uint32_t>(P.n_levels - 1);
    for (std::int64_t r = 0; r < rows; ++r, x += length, y += length) {
      std::int32_t m = x[0];
      for (std::int32_t j = 1; j < length; ++j) m = x[j] > m ? x[j] : m;
      std::uint32_t sum = 0;  // wraps modulo 2^32 as the reference's does
      for (std::int32_t j = 0; j < length; ++j) sum += table::e[static_cast<std::size_t>(m - x[j])];
      for (std::int32_t j = 0; j < length; ++j) {
        const std::uint32_t e = table::e[static_cast<std::size_t>(m - x[j])];
        if constexpr (table::product_fits_32) {
          y[j] = static_cast<std::uint8_t>(e * top / sum);
        } else {
          y[j] = static_cast<std::uint8_t>(std::uint64_t{e} * top / sum);
        }
      }
    }
  }
}

}  // namespace tessera::kernels::algorithm
