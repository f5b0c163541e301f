// x86 Add / Sub with requantization: the output is walked row by row (its innermost dim after
// merging dims that are contiguous in both operands); a row whose A is contiguous and whose B
// is contiguous or broadcast (stride 0: a per-channel B, or a scalar B) runs in SIMD, 8 or 16
// elements at a time, with the vector requantization; any other row runs scalar.
//
// 8-bit a +- b always fits int16 (-383 .. 510), so the arithmetic is 16-bit and only the
// epilogue widens to int32. Scratch: none (binary_scratch_bytes is 0).
#pragma once

#include <array>
#include <cstdint>

#include <tessera/kernels/arch/x86.hpp>
#include <tessera/kernels/x86/requant_epilogue.hpp>
#include <tessera/kernels/x86/traits.hpp>

namespace tessera::kernels::x86 {

/// out[idx] = a[idx . a_stride] +- b[idx . b_stride] (semantics: reference::binary).
/// - a, b: 8-bit, any strides (0 where broadcast)
/// - out:  contiguous over d.out; int32 or requantized by flat index (per tensor and per
///         last-dim channel vectorized, other layouts per element)
template <class TA, class TB, class TOut>
void binary_rows(reference::binary_op op, const reference::binary_dims& d, const TA* a, const TB* b,
                 const requant_params& rq, TOut* out) {
  using ax::vwide;
  constexpr int lanes = ax::wide_i16;
  constexpr int half = lanes / 2;
  const bool is_add = op == reference::binary_op::add;

  // Merge trailing dims that are contiguous in both operands (never past the channel dim when
  // the requantization is per channel, whose index is then the position in the row).
  int rank = d.rank;
  std::array<int, max_rank> ext{};
  std::array<std::int64_t, max_rank> as{}, bs{};
  for (int i = 0; i < rank; ++i) ext[i] = d.out[i], as[i] = d.a_stride[i], bs[i] = d.b_stride[i];
  const epilogue<TOut> ep(rq, 0, ext[rank - 1]);
  if (ep.mode == requant_mode::none || ep.mode == requant_mode::tensor) {
    while (rank > 1 && as[rank - 2] == as[rank - 1] * ext[rank - 1] && bs[rank - 2] == bs[rank - 1] * ext[rank - 1]) {
      ext[rank - 2] *= ext[rank - 1];
      as[rank - 2] = as[rank - 1];
      bs[rank - 2] = bs[rank - 1];
      --rank;
    }
  }
  const int len = ext[rank - 1];
  if (len <= 0) return;
  const std::int64_t sa = as[rank - 1], sb = bs[rank - 1];
  const bool vector_row = sa == 1 && (sb == 1 || sb == 0);
  std::int64_t rows = 1;
  for (int i = 0; i < rank - 1; ++i) rows *= ext[i];

  std::array<int, max_rank> idx{};  // odometer over the outer dims
  for (std::int64_t row = 0; row < rows; ++row) {
    std::int64_t a_off = 0, b_off = 0;
    for (int i = 0; i < rank - 1; ++i) a_off += idx[i] * as[i], b_off += idx[i] * bs[i];
    const TA* pa = a + a_off;
    const TB* pb = b + b_off;
    const std::int64_t flat = row * len;
    TOut* po = out + flat;
    if (vector_row) {
      const vwide b_splat = ax::wide_set1_16(static_cast<std::int16_t>(*pb));
      for (int j = 0; j < len; j += lanes) {
        const int n = len - j < lanes ? len - j : lanes;
        const vwide va = n == lanes ? ax::wide_load_widen<TA>(pa + j) : ax::wide_load_widen_partial<TA>(pa + j, n);
        const vwide vb = sb == 0 ? b_splat
                         : n == lanes ? ax::wide_load_widen<TB>(pb + j)
                                      : ax::wide_load_widen_partial<TB>(pb + j, n);
        const vwide v = is_add ? ax::wide_add16(va, vb) : ax::wide_sub16(va, vb);
        ep.store(po + j, ax::wide_widen16to32_lo(v), 0, j, n < half ? n : half, flat + j);
        if (n > half) ep.store(po + j + half, ax::wide_widen16to32_hi(v), 0, j + half, n - half, flat + j + half);
      }
    } else {
      for (int j = 0; j < len; ++j) {
        const auto x = static_cast<std::int32_t>(pa[j * sa]);
        const auto y = static_cast<std::int32_t>(pb[j * sb]);
        po[j] = static_cast<TOut>(rq.apply(is_add ? x + y : x - y, flat + j));
      }
    }
    for (int i = rank - 2; i >= 0; --i) {
      if (++idx[i] < ext[i]) break;
      idx[i] = 0;
    }
  }
}

}  // namespace tessera::kernels::x86
