// arm_mve fully connected layer: blocks of 3 activation rows through the 3 x 2 micro-kernel,
// leftover rows (and batch 1) through the 1 x 4 one, then the requantization epilogue.
//
// Measured (QEMU mps3-an547, int8, per-channel requantization), batch 1: 640 -> 128 0.19
// instructions per multiply-add (1 x 4 kernel: 40 iterations of 10 instructions per 4 outputs,
// 0.16), 256 -> 10 0.42 (the per-call table and epilogue weigh more on 2560 multiply-adds).
// CMSIS-NN: 0.49 and 0.68.
#pragma once

#include <cstdint>
#include <type_traits>

#include <tessera/core/requant.hpp>
#include <tessera/kernels/arm_mve/common.hpp>
#include <tessera/kernels/arm_mve/mat_mult_s8.hpp>
#include <tessera/kernels/arm_mve/requant.hpp>
#include <tessera/kernels/arm_mve/traits.hpp>
#include <tessera/kernels/common/requant_epilogue.hpp>
#include <tessera/kernels/reference/gemm.hpp>

namespace tessera::kernels::arm_mve {

/// out[r][c] = bias[c] + sum_t a[r][t] * w[c][t] (reference::gemm's contract, bit-exact).
///
/// - `a`: [m][k] int8 or uint8; `w`: [n][k] int8; `bias`: [n] int32 or null.
/// - `rq`: disabled, per tensor, per output feature (length n) or per row (length m, inner n).
/// - `out`: [m][n]; `scratch`: gemm_scratch(d).total bytes, any alignment.
template <class TA, class TOut>
void gemm(const reference::gemm_dims& d, const TA* a, const std::int8_t* w, const std::int32_t* bias,
          const requant_params& rq, TOut* out, void* scratch) {
  if (d.m <= 0 || d.n <= 0) return;
  const scratch_parts layout = gemm_scratch(d);
  std::byte* base = align16(scratch);
  auto* table = scratch_part<std::int32_t>(base, layout, 0);
  auto* acc = scratch_part<std::int32_t>(base, layout, 1);
  auto* rows_s8 = scratch_part<std::int8_t>(base, layout, 2);
  const bool rowwise = is_rowwise(rq, d.m, d.n);
  auto plan_for = [&](const requant_params& r) {
    const std::int64_t bound = s8_products_bound(d.k);
    if constexpr (std::is_signed_v<TA>) return plan_requant(r, d.n, bias, no_correction{}, bound, table);
    else return plan_requant(r, d.n, bias, weight_sum_correction{w, d.k}, bound, table);
  };
  requant_plan plan;
  if (!rowwise) plan = plan_for(rq);
  for (int r0 = 0; r0 < d.m; r0 += tile_rows) {
    const int rows = d.m - r0 < tile_rows ? d.m - r0 : tile_rows;
    const std::int8_t* x = reinterpret_cast<const std::int8_t*>(a + std::ptrdiff_t(r0) * d.k);
    if constexpr (!std::is_signed_v<TA>) {
      copy_as_s8(rows_s8, a + std::ptrdiff_t(r0) * d.k, rows * d.k);
      x = rows_s8;
    }
    // 3 rows: the 3 x 2 kernel; 1 or 2 rows (batch 1): the 1 x 4 kernel per row.
    const acc_layout acc_form = rows == tile_rows ? acc_layout::pairs : acc_layout::contiguous;
    const int ldc = static_cast<int>(round_up(std::size_t(d.n), 4));
    if (d.k <= 0) arch::mve::fill_bytes(acc, 0, static_cast<int>(block_acc_bytes(d.n)));
    else if (rows == tile_rows) mat_mult_3xn_s8(x, d.k, w, d.n, acc);
    else for (int r = 0; r < rows; ++r) mat_mult_1xn_s8(x + std::ptrdiff_t(r) * d.k, d.k, w, d.n, acc + r * ldc);
    for (int r = 0; r < rows; ++r) {
      if (rowwise) {
        requant_params row = rq;
        row.mul += r0 + r;
        row.add += r0 + r;
        row.length = 1;
        row.inner = 1;
        plan = plan_for(row);
      }
      const std::int32_t* acc_r = acc_form == acc_layout::pairs ? acc + 2 * r : acc + r * ldc;
      requant_row(plan, acc_r, acc_form, d.n, out + std::ptrdiff_t(r0 + r) * d.n);
    }
  }
}

}  // namespace tessera::kernels::arm_mve
