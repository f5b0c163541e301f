// arm_dsp fully connected layer (Gemm with B stored [n][k]): the generic row loop
// (algorithm/gemm.hpp), rows of A in blocks of 4 through the conv micro-kernel
// (detail/mat_mult.hpp), the leftover rows (all of them for the usual batch of 1) through the
// two-channels-per-step row kernel.
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
#include <tessera/kernels/algorithm/gemm.hpp>
#include <tessera/kernels/arm_dsp/detail/expand.hpp>
#include <tessera/kernels/arm_dsp/detail/mat_mult.hpp>
#include <tessera/kernels/arm_dsp/epilogue.hpp>
#include <tessera/kernels/arm_dsp/traits.hpp>
#include <tessera/kernels/common/requant_epilogue.hpp>
#include <tessera/kernels/reference/gemm.hpp>

namespace tessera::kernels::arm_dsp {

namespace detail {

/// Where a matrix product keeps its expanded rows, accumulators and epilogue table (parts of
/// gemm_scratch or matmul_scratch).
struct product_parts {
  std::uint32_t* col;
  std::int32_t* acc;
  rq_entry* table;
};

/// The matrix product's atom (algorithm/gemm.hpp): blocks of 4 rows of A expanded to int16
/// through the 1x4 micro-kernel, leftover rows through the 2-channels-per-step row kernel.
template <bool WSigned, class TA, class TOut>
struct product_atom {
  static constexpr int rows = tile_pixels;
  int n, k;
  const TA* a;
  std::int64_t a_stride;
  weight_rows w;
  const std::int32_t* bias;
  bool rowwise;  ///< requantized per row: the bias joins the sums before the epilogue
  epilogue_plan plan;
  product_parts parts;
  TOut* out;

  void pack(int r0, int count) {
    if (count == rows) {
      for (int p = 0; p < rows; ++p) expand_row<TA, 8>(a + (r0 + p) * a_stride, k, parts.col + 2 * p);
    } else {
      expand_row<TA, 2>(a + r0 * a_stride, k, parts.col);
    }
  }
  void compute(int r0, int count) {
    const auto* col = reinterpret_cast<const std::int16_t*>(parts.col);
    if (count == rows) block_1x4<WSigned>(w, n, col, parts.acc);
    else row_2x1<WSigned>(w, n, col, parts.acc);
    for (int p = 0; p < count; ++p) {
      std::int32_t* sums = parts.acc + p;
      TOut* o = out + std::int64_t{r0 + p} * n;
      if (rowwise && bias != nullptr) {
        for (int c = 0; c < n; ++c) {
          sums[c * count] = static_cast<std::int32_t>(std::uint32_t(sums[c * count]) + std::uint32_t(bias[c]));
        }
      }
      if (rowwise) store_fixed(sums, count, plan, r0 + p, n, o, 1);
      else if (count == rows) store_channels<tile_pixels>(sums, plan, 0, n, o);
      else store_channels<1>(sums, plan, 0, n, o);
    }
  }
};

/// The epilogue of an m x n x k product requantized per column (channelwise; the bias folded
/// into the table) or per row (the table over the m rows; the bias joins the sums before it,
/// so it widens the accumulator bound). Also a constant expression: a whole Gemm layer gets its
/// table at compile time in flash (flash_constants.hpp).
template <bool WSigned, class TA, class TOut>
constexpr epilogue_plan product_epilogue(int m, int n, int k, const std::int32_t* bias, const requant_params& rq,
                                         rq_entry* table) {
  const bool rowwise = is_rowwise(rq, m, n);
  using TW = std::conditional_t<WSigned, std::int8_t, std::uint8_t>;
  std::int64_t bound = product_bound<TA, TW>(k);
  if (rowwise && bias != nullptr) {
    std::int64_t bias_max = 0;
    for (int c = 0; c < n; ++c) {
      bias_max = std::max<std::int64_t>(bias_max, bias[c] < 0 ? -std::int64_t{bias[c]} : bias[c]);
    }
    bound += bias_max;
  }
  return rowwise ? make_epilogue<TOut>(rq, m, table, nullptr, bound) : make_epilogue<TOut>(rq, n, table, bias, bound);
}

/// out[r][c] = bias[c] + dot(row r of A, weight row c), requantized per column (channelwise) or
/// per row; A is TA [m][k] with row stride `a_stride`, `w` the weight rows (n of them).
/// `flash`: the epilogue's table computed at compile time (else built in parts.table).
template <bool WSigned, class TA, class TOut>
void matrix_product(int m, int n, int k, const TA* a, std::int64_t a_stride, weight_rows w,
                    const std::int32_t* bias, const requant_params& rq, TOut* out, product_parts parts,
                    const flash_constants* flash = nullptr) {
  // Per-row requantization cannot fold the per-column bias into its table: add it to the sums.
  const bool rowwise = is_rowwise(rq, m, n);
  const epilogue_plan plan = flash != nullptr ? flash->plan(rowwise ? nullptr : bias, rq)
                                              : product_epilogue<WSigned, TA, TOut>(m, n, k, bias, rq, parts.table);
  product_atom<WSigned, TA, TOut> atom{n, k, a, a_stride, w, bias, rowwise, plan, parts, out};
  algorithm::gemm_row_blocks(m, atom);
}

}  // namespace detail

/// Fully connected: out[r][c] = bias[c] + sum_t a[r][t] * w[c][t].
/// - `a`:    [m][k], int8 or uint8.
/// - `w`:    [n][k] int8.
/// - `bias`: [n] int32 or nullptr.
/// - `rq`:   disabled (int32 output), per tensor, per output feature (length n) or per row
///           (length m, inner n).
/// - `out`:  [m][n].
/// - `scratch`: gemm_scratch(d).total bytes, any alignment (gemm_scratch(d, true) with `flash`).
/// - `flash`: the epilogue's table computed at compile time (flash_constants.hpp).
template <class TA, class TOut>
void gemm_rows(const reference::gemm_dims& d, const TA* a, const std::int8_t* w, const std::int32_t* bias,
               const requant_params& rq, TOut* out, void* scratch, const flash_constants* flash = nullptr) {
  const detail::weight_rows rows{reinterpret_cast<const std::uint8_t*>(w), d.k / 4, d.k % 4};
  const auto layout = gemm_scratch(d, flash != nullptr);
  const detail::product_parts parts{layout.part<std::uint32_t>(scratch, 0), layout.part<std::int32_t>(scratch, 1),
                                    layout.part<rq_entry>(scratch, 2)};
  detail::matrix_product<true>(d.m, d.n, d.k, a, d.k, rows, bias, rq, out, parts, flash);
}

}  // namespace tessera::kernels::arm_dsp
