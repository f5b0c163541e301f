// arm_dsp fully connected layer (Gemm with B stored [n][k]): rows of A in blocks of 4 through
// the conv micro-kernel (detail/mat_mult.hpp), the leftover rows (all of them for the usual
// batch of 1) through the two-channels-per-step row kernel.
//
// With one row each weight is used once, so the cost is the weights' expansion: per group of
// 4 weights LDR + 2 SXTB16 + 2 SMLAD, the activation words shared by two channels (1.44
// instructions per MAC in the loop; measured 1.54 for 640->128 and 1.92 for 256->10, where the
// per-call setup shows). The row of A is expanded to int16 once per call.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <tessera/core/requant.hpp>
#include <tessera/kernels/arm_dsp/detail/expand.hpp>
#include <tessera/kernels/arm_dsp/detail/mat_mult.hpp>
#include <tessera/kernels/arm_dsp/epilogue.hpp>
#include <tessera/kernels/arm_dsp/traits.hpp>
#include <tessera/kernels/common/requant_epilogue.hpp>
#include <tessera/kernels/reference/gemm.hpp>

namespace tessera::kernels::arm_dsp {

namespace detail {

/// out[r][c] = bias[c] + dot(row r of A, weight row c), requantized per column (channelwise) or
/// per row; A is TA [m][k] with row stride `a_stride`, `rows` the weight rows (n of them).
template <bool WSigned, class TA, class TOut>
void matrix_product(int m, int n, int k, const TA* a, std::int64_t a_stride, weight_rows rows,
                    const std::int32_t* bias, const requant_params& rq, TOut* out, void* scratch) {
  const int groups = (k + 3) / 4;
  auto* base = static_cast<std::uint8_t*>(align8(scratch));
  auto* col = reinterpret_cast<std::uint32_t*>(base);
  const std::size_t rows_per_block = m >= tile_pixels ? tile_pixels : 1;  // as gemm_scratch_bytes
  auto* acc = reinterpret_cast<std::int32_t*>(base + std::size_t(groups) * 8 * rows_per_block);
  auto* table = reinterpret_cast<rq_entry*>(acc + rows_per_block * n);
  // Per-row requantization cannot fold the per-column bias into its table: add it to the sums.
  const bool rowwise = is_rowwise(rq, m, n);
  using TW = std::conditional_t<WSigned, std::int8_t, std::uint8_t>;
  std::int64_t bound = product_bound<TA, TW>(k);
  if (rowwise && bias != nullptr) {  // the bias joins the sums before the epilogue
    std::int64_t bias_max = 0;
    for (int c = 0; c < n; ++c) {
      bias_max = std::max<std::int64_t>(bias_max, bias[c] < 0 ? -std::int64_t{bias[c]} : bias[c]);
    }
    bound += bias_max;
  }
  const epilogue_plan plan =
      rowwise ? make_epilogue<TOut>(rq, m, table, nullptr, bound) : make_epilogue<TOut>(rq, n, table, bias, bound);
  auto add_bias = [&](std::int32_t* sums, int stride) {
    if (rowwise && bias != nullptr) {
      for (int c = 0; c < n; ++c) {
        sums[c * stride] = static_cast<std::int32_t>(std::uint32_t(sums[c * stride]) + std::uint32_t(bias[c]));
      }
    }
  };
  int r = 0;
  for (; r + tile_pixels <= m; r += tile_pixels) {
    for (int p = 0; p < tile_pixels; ++p) expand_row<TA, 8>(a + (r + p) * a_stride, k, col + 2 * p);
    block_1x4<WSigned>(rows, n, reinterpret_cast<const std::int16_t*>(col), acc);
    for (int p = 0; p < tile_pixels; ++p) {
      TOut* o = out + std::int64_t{r + p} * n;
      add_bias(acc + p, tile_pixels);
      if (rowwise) store_fixed(acc + p, tile_pixels, plan, r + p, n, o, 1);
      else store_channels<tile_pixels>(acc + p, plan, 0, n, o);
    }
  }
  for (; r < m; ++r) {
    expand_row<TA, 2>(a + r * a_stride, k, col);
    row_2x1<WSigned>(rows, n, reinterpret_cast<const std::int16_t*>(col), acc);
    TOut* o = out + std::int64_t{r} * n;
    add_bias(acc, 1);
    if (rowwise) store_fixed(acc, 1, plan, r, n, o, 1);
    else store_channels<1>(acc, plan, 0, n, o);
  }
}

}  // namespace detail

/// Fully connected: out[r][c] = bias[c] + sum_t a[r][t] * w[c][t].
/// - `a`:    [m][k], int8 or uint8.
/// - `w`:    [n][k] int8.
/// - `bias`: [n] int32 or nullptr.
/// - `rq`:   disabled (int32 output), per tensor, per output feature (length n) or per row
///           (length m, inner n).
/// - `out`:  [m][n].
/// - `scratch`: gemm_scratch_bytes(d) bytes, any alignment.
template <class TA, class TOut>
void gemm_rows(const reference::gemm_dims& d, const TA* a, const std::int8_t* w, const std::int32_t* bias,
               const requant_params& rq, TOut* out, void* scratch) {
  const detail::weight_rows rows{reinterpret_cast<const std::uint8_t*>(w), d.k / 4, d.k % 4};
  detail::matrix_product<true>(d.m, d.n, d.k, a, d.k, rows, bias, rq, out, scratch);
}

}  // namespace tessera::kernels::arm_dsp
