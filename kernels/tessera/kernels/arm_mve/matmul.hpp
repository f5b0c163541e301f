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
#include <tessera/kernels/algorithm/matmul.hpp>
#include <tessera/kernels/arch/arm_mve.hpp>
#include <tessera/kernels/arm_mve/common.hpp>
#include <tessera/kernels/arm_mve/gemm.hpp>
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

/// B stored transposed ([n][k], a folded Transpose): the same s8 rows as transpose_as_s8 gives,
/// a copy (with the sign bit flipped for uint8).
template <class TB>
inline void copy_as_s8(const TB* b, int count, std::int8_t* bt) {
  const auto* src = reinterpret_cast<const std::uint8_t*>(b);
  auto* dst = reinterpret_cast<std::uint8_t*>(bt);
  for (int i = 0; i < count; i += 16) {
    const mve_pred16_t p = vctp8q(static_cast<std::uint32_t>(count - i));
    uint8x16_t v = vldrbq_z_u8(src + i, p);
    if constexpr (!std::is_signed_v<TB>) v = veorq_u8(v, vdupq_n_u8(0x80));
    vstrbq_p_u8(dst + i, v, p);
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
  // One or two rows over a short k: B read in place (past 64 the vector product of the packed B
  // wins back its packing: the decoder's step at 256 positions, 1.6% fewer instructions packed).
  if (algorithm::row_accumulate_atom<TA, TB, TOut>::fits(d) && d.k <= 64) {
    algorithm::row_accumulate_atom<TA, TB, TOut> rows{d, rq};
    algorithm::matmul_batches(d, a, b, out, rows);
    return;
  }
  const auto layout = matmul_scratch(d);
  auto* table = layout.part<std::int32_t>(scratch, 0);
  auto* acc = layout.part<std::int32_t>(scratch, 1);
  auto* bt = layout.part<std::int8_t>(scratch, 2);
  auto* rows_s8 = layout.part<std::int8_t>(scratch, 3);
  constexpr int ua = std::is_signed_v<TA> ? 0 : 1;
  constexpr int ub = std::is_signed_v<TB> ? 0 : 1;
  requant_plan plan;
  // Each row's sums before requantization: with uint8 B, the row term 128 * sum_t a'[r][t].
  auto row_sums = [&](int, const std::int8_t* x, std::int32_t* acc_r, acc_layout form) -> const requant_plan& {
    if (ub != 0) {
      const std::int32_t term = 128 * arch::mve::sum_s8(x, d.k);
      for (int c = 0; c < d.n; ++c) acc_r[detail::acc_index(form, c)] += term;
    }
    return plan;
  };
  struct batches {
    const reference::matmul_dims& d;
    std::int8_t* bt;
    std::int32_t* table;
    std::int32_t* acc;
    std::int8_t* rows_s8;
    requant_plan& plan;
    decltype(row_sums)& row;
    const requant_params& rq;

    void load_b(const TB* b_mat) {
      if (d.b_transposed) detail::copy_as_s8(b_mat, d.k * d.n, bt);
      else detail::transpose_as_s8(b_mat, d.k, d.n, bt);
      const int k = d.k;
      plan = plan_requant(
          rq, d.n, nullptr,
          [&](int c) {
            const std::int64_t col = arch::mve::sum_s8(bt + std::ptrdiff_t(c) * k, k);
            return 128 * ua * col + 128 * 128 * std::int64_t{ua * ub} * k;
          },
          2 * s8_products_bound(k), table);
    }
    void multiply(const TA* a_mat, TOut* o, std::int64_t) {
      detail::product_atom<TA, TOut, decltype(row_sums)> atom{
          d.n, d.k, a_mat, bt, acc, rows_s8, o, row, mat_mult_3x2_for(d.k)};
      algorithm::gemm_row_blocks(d.m, atom);
    }
  } atom{d, bt, table, acc, rows_s8, plan, row_sums, rq};
  algorithm::matmul_batches(d, a, b, out, atom);
}

}  // namespace tessera::kernels::arm_mve
