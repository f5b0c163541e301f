// arm_mve fully connected layer: the generic row loop (algorithm/gemm.hpp), blocks of 3
// activation rows through the 3 x 2 micro-kernel, leftover rows (and batch 1) through the 1 x 4
// one, then the requantization epilogue.
//
// Measured (QEMU mps3-an547, int8, per-channel requantization), batch 1: 640 -> 128 0.19
// instructions per multiply-add (1 x 4 kernel: 40 iterations of 10 instructions per 4 outputs,
// 0.16), 256 -> 10 0.42 (the per-call table and epilogue weigh more on 2560 multiply-adds).
// CMSIS-NN: 0.49 and 0.68.
#pragma once

#include <cstdint>
#include <type_traits>

#include <tessera/core/requant.hpp>
#include <tessera/kernels/algorithm/gemm.hpp>
#include <tessera/kernels/arm_mve/common.hpp>
#include <tessera/kernels/arm_mve/mat_mult_s8.hpp>
#include <tessera/kernels/arm_mve/requant.hpp>
#include <tessera/kernels/arm_mve/traits.hpp>
#include <tessera/kernels/common/requant_epilogue.hpp>
#include <tessera/kernels/reference/gemm.hpp>

namespace tessera::kernels::arm_mve {

namespace detail {

/// The matrix-product atom (algorithm/gemm.hpp) shared by Gemm and MatMul: blocks of 3 rows of A
/// (as int8; uint8 rows copied as x - 128) through the 3 x 2 kernel, leftover rows through the
/// 1 x 4 kernel, then the requantization of each row. `Row` adjusts a row's sums before it
/// (MatMul's uint8 correction) and may pick a per-row plan (Gemm requantized per row).
template <class TA, class TOut, class Row>
struct product_atom {
  static constexpr int rows = tile_rows;
  int n, k;
  const TA* a;
  const std::int8_t* w;
  std::int32_t* acc;
  std::int8_t* rows_s8;
  TOut* out;
  Row& row;
  mat_mult_3x2_fn kernel;  ///< mat_mult_3x2_for(k)
  const std::int8_t* x = nullptr;

  void pack(int r0, int count) {
    x = reinterpret_cast<const std::int8_t*>(a + std::ptrdiff_t(r0) * k);
    if constexpr (!std::is_signed_v<TA>) {
      copy_as_s8(rows_s8, a + std::ptrdiff_t(r0) * k, count * k);
      x = rows_s8;
    }
  }
  void compute(int r0, int count) {
    const acc_layout form = count == tile_rows ? acc_layout::pairs : acc_layout::contiguous;
    if (k <= 0) arch::mve::fill_bytes(acc, 0, static_cast<int>(block_acc_bytes(n)));
    else if (count == tile_rows) mat_mult_3xn_s8(x, k, w, n, acc, kernel);
    else mat_mult_1xn_s8(x, k, w, n, acc);
    for (int r = 0; r < count; ++r) {
      std::int32_t* acc_r = form == acc_layout::pairs ? acc + 2 * r : acc;
      const requant_plan& plan = row(r0 + r, x + std::ptrdiff_t(r) * k, acc_r, form);
      requant_row(plan, acc_r, form, n, out + std::ptrdiff_t(r0 + r) * n);
    }
  }
};

/// The requantization plan of a Gemm (or of one row of it). Out of line: the row loop inlines
/// its caller for blocks and for single rows.
template <class TA>
[[gnu::noinline]] requant_plan gemm_plan(const requant_params& r, const reference::gemm_dims& d, const std::int8_t* w,
                                         const std::int32_t* bias, std::int32_t* table) {
  const std::int64_t bound = s8_products_bound(d.k);
  if constexpr (std::is_signed_v<TA>) return plan_requant(r, d.n, bias, no_correction{}, bound, table);
  else return plan_requant(r, d.n, bias, weight_sum_correction{w, d.k}, bound, table);
}

}  // namespace detail

namespace detail {
/// gemm's body, shared by every choice of micro-kernel.
template <class TA, class TOut>
[[gnu::noinline]] void gemm_by(const reference::gemm_dims& d, const TA* a, const std::int8_t* w,
                               const std::int32_t* bias, const requant_params& rq, TOut* out, void* scratch,
                               mat_mult_3x2_fn kernel) {
  if (d.m <= 0 || d.n <= 0) return;
  const auto layout = gemm_scratch(d);
  auto* table = layout.part<std::int32_t>(scratch, 0);
  const bool rowwise = is_rowwise(rq, d.m, d.n);
  auto plan_for = [&](const requant_params& r) { return detail::gemm_plan<TA>(r, d, w, bias, table); };
  requant_plan plan;
  if (!rowwise) plan = plan_for(rq);
  // Per-row requantization: one plan per row (its multiplier and offset for every column).
  auto row = [&](int r, const std::int8_t*, std::int32_t*, acc_layout) -> const requant_plan& {
    if (rowwise) {
      requant_params one = rq;
      one.mul += r;
      one.add += r;
      one.length = 1;
      one.inner = 1;
      plan = plan_for(one);
    }
    return plan;
  };
  detail::product_atom<TA, TOut, decltype(row)> atom{d.n, d.k, a, w, layout.part<std::int32_t>(scratch, 1),
                                                     layout.part<std::int8_t>(scratch, 2), out, row,
                                                     kernel};
  algorithm::gemm_row_blocks(d.m, atom);
}
}  // namespace detail

/// out[r][c] = bias[c] + sum_t a[r][t] * w[c][t] (reference::gemm's contract, bit-exact).
///
/// - `a`: [m][k] int8 or uint8; `w`: [n][k] int8; `bias`: [n] int32 or null.
/// - `rq`: disabled, per tensor, per output feature (length n) or per row (length m, inner n).
/// - `out`: [m][n]; `scratch`: gemm_scratch(d).total bytes, any alignment.
/// - `Kernel`: the 3 x 2 micro-kernel when the caller chose it at compile time (a whole layer),
///   else null and chosen here.
template <class TA, class TOut, mat_mult_3x2_fn Kernel = nullptr>
void gemm(const reference::gemm_dims& d, const TA* a, const std::int8_t* w, const std::int32_t* bias,
          const requant_params& rq, TOut* out, void* scratch) {
  mat_mult_3x2_fn kernel = Kernel;
  if constexpr (Kernel == nullptr) kernel = mat_mult_3x2_for(d.k);
  detail::gemm_by(d, a, w, bias, rq, out, scratch, kernel);
}

}  // namespace tessera::kernels::arm_mve
