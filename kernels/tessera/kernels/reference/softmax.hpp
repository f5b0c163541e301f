// Reference integer softmaxes over the last axis: the dialect's iSoftmax (I-BERT's polynomial
// exponential), ITAMax and ITAPartialMax (ITA's power-of-two exponential, whole row or streamed
// over column groups). Each row of `length` values is normalized on its own, so a tile must hold
// whole rows (the node tiles rows only).
//
// Semantics: ../../../../docs/semantics.md ("iSoftmax, ITAMax, ITAPartialMax").
// Tensors: input int8 or uint8 (true values), output uint8 in [0, n_levels - 1]; row-major
// [rows][length]. No scratch: iSoftmax computes each exponential twice instead of storing it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessera::kernels::reference {

enum class softmax_kind : std::uint8_t {
  i_softmax,        ///< iSoftmax: coeff_a, coeff_b, coeff_c, log2
  ita_max,          ///< ITAMax
  ita_partial_max,  ///< ITAPartialMax: group_width
};

/// The constants of one softmax (a node's template argument). onnx2hpp checks that iSoftmax's
/// polynomial is positive and that a row's sum of exponentials fits 32 bits.
struct softmax_params {
  softmax_kind kind = softmax_kind::i_softmax;
  std::int32_t coeff_a = 1, coeff_b = 0, coeff_c = 1, log2 = 1;
  std::int32_t n_levels = 256;
  std::int32_t group_width = 16;
};

/// Scratch needed by `integer_softmax`: none.
constexpr std::size_t softmax_scratch_bytes(std::int64_t /*count*/) { return 0; }

namespace detail {
/// iSoftmax's exponential of xt = x - max(row) <= 0 (a 32-bit unsigned value):
/// z = clamp(-(xt / log2), 0, 31) (C division), p = xt + z*log2, (a*(p+b)^2 + c) >> z.
constexpr std::int64_t i_softmax_exp(std::int64_t xt, const softmax_params& p) {
  std::int64_t z = -(xt / p.log2);
  z = z < 0 ? 0 : (z > 31 ? 31 : z);
  const std::int64_t q = xt + z * p.log2 + p.coeff_b;
  return ((std::int64_t{p.coeff_a} * q * q + p.coeff_c) >> z) & 0xffffffff;
}
/// ITA's exponent of x below the row maximum m: 2^-shift with shift = (m - x + 16) >> 5.
constexpr int ita_shift(std::int32_t m, std::int32_t x) { return (m - x + 16) >> 5; }
/// 256 >> shift, 0 from a shift of 9 on (also for 32-bit inputs).
constexpr std::uint32_t ita_term(int shift) { return shift > 8 ? 0u : 256u >> shift; }
}  // namespace detail

/// One softmax per row: y[r][j] for x[r][j], r < rows, j < length (length >= 1).
///
/// - iSoftmax:      e_j = i_softmax_exp(x_j - m), s = sum e_j (uint32), y_j = e_j*(n-1) / s.
/// - ITAMax:        S = sum(256 >> shift_j), y_j = ((n-1)*256 / S) >> shift_j.
/// - ITAPartialMax: the maximum and S run over groups of `group_width` columns, starting from
///                  m = -128, S = 0; a group that raises m to m' first shifts S right by
///                  (m' - m + 16) >> 5; y_j = ((n/2-1)*256 / S) >> shift_j with the final m.
template <class TIn>
constexpr void integer_softmax(std::int64_t rows, std::int32_t length, const TIn* x, const softmax_params& p,
                               std::uint8_t* y) {
  static_assert(sizeof(TIn) == 1, "integer_softmax: the input must be an 8-bit integer (int8 or uint8)");
  for (std::int64_t r = 0; r < rows; ++r, x += length, y += length) {
    if (p.kind == softmax_kind::ita_partial_max) {
      std::int32_t m = -128;
      std::uint32_t sum = 0;
      for (std::int32_t g = 0; g < length; g += p.group_width) {
        const std::int32_t end = g + p.group_width < length ? g + p.group_width : length;
        std::int32_t group_max = m;
        for (std::int32_t j = g; j < end; ++j) group_max = x[j] > group_max ? x[j] : group_max;
        if (group_max > m) {
          sum >>= detail::ita_shift(group_max, m);
          m = group_max;
        }
        for (std::int32_t j = g; j < end; ++j) sum += detail::ita_term(detail::ita_shift(m, x[j]));
      }
      const std::uint32_t inv = static_cast<std::uint32_t>((p.n_levels / 2 - 1) * 256) / sum;
      for (std::int32_t j = 0; j < length; ++j)
        y[j] = static_cast<std::uint8_t>(inv >> detail::ita_shift(m, x[j]));
      continue;
    }
    std::int32_t m = x[0];
    for (std::int32_t j = 1; j < length; ++j) m = x[j] > m ? x[j] : m;
    if (p.kind == softmax_kind::ita_max) {
      std::uint32_t sum = 0;
      for (std::int32_t j = 0; j < length; ++j) sum += detail::ita_term(detail::ita_shift(m, x[j]));
      const std::uint32_t inv = static_cast<std::uint32_t>((p.n_levels - 1) * 256) / sum;
      for (std::int32_t j = 0; j < length; ++j)
        y[j] = static_cast<std::uint8_t>(inv >> detail::ita_shift(m, x[j]));
    } else {
      std::uint32_t sum = 0;
      for (std::int32_t j = 0; j < length; ++j) sum += static_cast<std::uint32_t>(detail::i_softmax_exp(x[j] - m, p));
      for (std::int32_t j = 0; j < length; ++j)
        y[j] = static_cast<std::uint8_t>(detail::i_softmax_exp(x[j] - m, p) * (p.n_levels - 1) / sum);
    }
  }
}

}  // namespace tessera::kernels::reference
