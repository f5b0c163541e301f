// arm_mve MatMul of two activations: B is transposed once per distinct batch matrix into
// scratch as [n][k] int8, then rows of A go through the same micro-kernels as Gemm.
//
// Signedness: each operand is fed as int8 (uint8 values as x - 128). With a = a' + 128*ua and
// b = b' + 128*ub (ua, ub = 1 for uint8 operands):
//     sum_t a*b = sum_t a'b' + 128*ub * sum_t a'[r][t] + 128*ua * sum_t b'[t][c] + 128^2*ua*ub*k,
// a row term added to the accumulators and a column term folded into the requantization table.
#pragma once

#include <cstdint>
#include <type_traits>

#include <tessera/core/requant.hpp>
#include <tessera/kernels/arch/arm_mve.hpp>
#include <tessera/kernels/arm_mve/common.hpp>
#include <tessera/kernels/arm_mve/mat_mult_s8.hpp>
#include <tessera/kernels/arm_mve/requant.hpp>
#include <tessera/kernels/arm_mve/traits.hpp>
#include <tessera/kernels/reference/matmul.hpp>

namespace tessera::kernels::arm_mve {

namespace detail {

/// bt[c][t] = b[t][c] as int8 for a [k][n] matrix, 8 elements of a column per gather.
template <class TB>
inline void transpose_as_s8(const TB* b, int k, int n, std::int8_t* bt) {
  if (std::int64_t{k - 1} * n > 0xFFFF) {  // gather offsets are 16-bit
    for (int c = 0; c < n; ++c)
      for (int t = 0; t < k; ++t)
        bt[std::ptrdiff_t(c) * k + t] =
            static_cast<std::int8_t>(static_cast<std::uint8_t>(b[std::ptrdiff_t(t) * n + c]) ^ zero_as_s8<TB>);
    return;
  }
  const uint16x8_t offsets = vmulq_n_u16(vidupq_n_u16(0, 1), static_cast<std::uint16_t>(n));
  const auto* src = reinterpret_cast<const std::uint8_t*>(b);
  for (int c = 0; c < n; ++c) {
    auto* dst = reinterpret_cast<std::uint8_t*>(bt + std::ptrdiff_t(c) * k);
    for (int t = 0; t < k; t += 8) {
      const mve_pred16_t p = vctp16q(static_cast<std::uint32_t>(k - t));
      uint16x8_t v = vldrbq_gather_offset_z_u16(src + std::ptrdiff_t(t) * n + c, offsets, p);
      if constexpr (!std::is_signed_v<TB>) v = veorq_u16(v, vdupq_n_u16(0x80));
      vstrbq_p_u16(dst + t, v, p);
    }
  }
}

}  // namespace detail

/// out[b...][r][c] = sum_t a[b...][r][t] * b[b...][t][c] (reference::matmul's contract, bit-exact).
///
/// - `a`, `b`: 8-bit, signed or not, batches addressed by d.a_stride / d.b_stride (0 broadcasts).
/// - `rq`: disabled, per tensor or per column (length n).
/// - `out`: contiguous [batch...][m][n]; `scratch`: matmul_scratch(d).total bytes.
template <class TA, class TB, class TOut>
void matmul(const reference::matmul_dims& d, const TA* a, const TB* b, const requant_params& rq, TOut* out,
            void* scratch) {
  if (d.m <= 0 || d.n <= 0) return;
  const scratch_parts layout = matmul_scratch(d);
  std::byte* base = align16(scratch);
  auto* table = scratch_part<std::int32_t>(base, layout, 0);
  auto* acc = scratch_part<std::int32_t>(base, layout, 1);
  auto* bt = scratch_part<std::int8_t>(base, layout, 2);
  auto* rows_s8 = scratch_part<std::int8_t>(base, layout, 3);
  constexpr int ua = std::is_signed_v<TA> ? 0 : 1;
  constexpr int ub = std::is_signed_v<TB> ? 0 : 1;
  const int ldc = static_cast<int>(round_up(std::size_t(d.n), 4));
  int extent[3] = {1, 1, 1};
  std::int64_t as[3] = {0, 0, 0}, bs[3] = {0, 0, 0};
  const int lead = 3 - d.batch_rank;
  for (int i = 0; i < d.batch_rank; ++i) {
    extent[lead + i] = d.batch[std::size_t(i)];
    as[lead + i] = d.a_stride[std::size_t(i)];
    bs[lead + i] = d.b_stride[std::size_t(i)];
  }
  const TB* b_done = nullptr;  // the B matrix now in bt (broadcast batches reuse it)
  requant_plan plan;
  TOut* o = out;
  for (int b0 = 0; b0 < extent[0]; ++b0) {
    for (int b1 = 0; b1 < extent[1]; ++b1) {
      for (int b2 = 0; b2 < extent[2]; ++b2) {
        const TA* a_mat = a + b0 * as[0] + b1 * as[1] + b2 * as[2];
        const TB* b_mat = b + b0 * bs[0] + b1 * bs[1] + b2 * bs[2];
        if (b_mat != b_done) {
          detail::transpose_as_s8(b_mat, d.k, d.n, bt);
          const int k = d.k;
          plan = plan_requant(
              rq, d.n, nullptr,
              [&](int c) {
                const std::int64_t col = arch::mve::sum_s8(bt + std::ptrdiff_t(c) * k, k);
                return 128 * ua * col + 128 * 128 * std::int64_t{ua * ub} * k;
              },
              2 * s8_products_bound(k), table);
          b_done = b_mat;
        }
        for (int r0 = 0; r0 < d.m; r0 += tile_rows) {
          const int rows = d.m - r0 < tile_rows ? d.m - r0 : tile_rows;
          const std::int8_t* x = reinterpret_cast<const std::int8_t*>(a_mat + std::ptrdiff_t(r0) * d.k);
          if constexpr (ua != 0) {
            copy_as_s8(rows_s8, a_mat + std::ptrdiff_t(r0) * d.k, rows * d.k);
            x = rows_s8;
          }
          const acc_layout acc_form = rows == tile_rows ? acc_layout::pairs : acc_layout::contiguous;
          if (d.k <= 0) arch::mve::fill_bytes(acc, 0, static_cast<int>(block_acc_bytes(d.n)));
          else if (rows == tile_rows) mat_mult_3xn_s8(x, d.k, bt, d.n, acc);
          else for (int r = 0; r < rows; ++r) mat_mult_1xn_s8(x + std::ptrdiff_t(r) * d.k, d.k, bt, d.n, acc + r * ldc);
          for (int r = 0; r < rows; ++r) {
            std::int32_t* acc_r = acc_form == acc_layout::pairs ? acc + 2 * r : acc + r * ldc;
            if (ub != 0) {  // the row term 128 * sum_t a'[r][t]
              const std::int32_t term = 128 * arch::mve::sum_s8(x + std::ptrdiff_t(r) * d.k, d.k);
              for (int c = 0; c < d.n; ++c) acc_r[detail::acc_index(acc_form, c)] += term;
            }
            requant_row(plan, acc_r, acc_form, d.n, o + std::ptrdiff_t(r0 + r) * d.n);
          }
        }
        o += std::ptrdiff_t(d.m) * d.n;
      }
    }
  }
}

}  // namespace tessera::kernels::arm_mve
