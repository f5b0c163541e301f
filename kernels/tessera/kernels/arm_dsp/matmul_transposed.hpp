// arm_dsp MatMul of two activations: B ([k][n], 8-bit of either signedness) is transposed into
// scratch as [n][k] rows padded to whole words, which turns each batch into the fully connected
// case (gemm_rows.hpp) with B in the role of the weights. A broadcast B (stride 0) is
// transposed once for all the batches it serves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <tessera/core/requant.hpp>
#include <tessera/kernels/algorithm/matmul.hpp>
#include <tessera/kernels/arm_dsp/gemm_rows.hpp>
#include <tessera/kernels/arm_dsp/traits.hpp>
#include <tessera/kernels/reference/matmul.hpp>

namespace tessera::kernels::arm_dsp {

/// The MatMul atom (algorithm/matmul.hpp): B transposed to [n][k] rows of whole words, then
/// the matrix product with B as the weights.
template <class TA, class TB, class TOut>
struct matmul_atom {
  const reference::matmul_dims& d;
  const requant_params& rq;
  std::uint8_t* bt;
  detail::product_parts parts;

  detail::weight_rows rows{};  ///< bt, or B itself when it is stored transposed

  void load_b(const TB* b) {
    const auto* bb = reinterpret_cast<const std::uint8_t*>(b);
    if (d.b_transposed) {  // a folded Transpose (a KV cache's keys): [n][k] rows read in place, as a
      rows = {bb, d.k / 4, d.k % 4};  // Gemm reads its weights (gemm_rows)
      return;
    }
    const int row = 4 * ((d.k + 3) / 4);
    for (int c = 0; c < d.n; ++c) {
      std::uint8_t* dst = bt + std::size_t(c) * row;
      const std::uint8_t* src = bb + c;
      int t = 0;
      for (; t < d.k; ++t) dst[t] = src[std::int64_t{t} * d.n];
      for (; t < row; ++t) dst[t] = 0;
    }
    rows = {bt, (d.k + 3) / 4, 0};
  }
  void multiply(const TA* a, TOut* out, std::int64_t) {
    detail::matrix_product<std::is_signed_v<TB>>(d.m, d.n, d.k, a, d.k, rows, nullptr, rq, out, parts);
  }
};

/// out[b...][r][c] = sum_t a[b...][r][t] * b[b...][t][c] (no bias), NumPy batch broadcasting.
/// - `a`: batches of [m][k], `b`: batches of [k][n] ([n][k] when d.b_transposed: read in place,
///   the transposition scratch unused; int8 or uint8 each), strides in `d`.
/// - `rq`: disabled (int32 output), per tensor or per output column (length n).
/// - `out`: contiguous [batch...][m][n].
/// - `scratch`: matmul_scratch(d).total bytes, any alignment.
template <class TA, class TB, class TOut>
void matmul_transposed(const reference::matmul_dims& d, const TA* a, const TB* b, const requant_params& rq,
                       TOut* out, void* scratch) {
  if (algorithm::row_accumulate_atom<TA, TB, TOut>::fits(d)) {  // one or two rows: B read in place
    algorithm::row_accumulate_atom<TA, TB, TOut> rows{d, rq};
    algorithm::matmul_batches(d, a, b, out, rows);
    return;
  }
  const auto layout = matmul_scratch(d);
  matmul_atom<TA, TB, TOut> atom{d, rq, layout.part<std::uint8_t>(scratch, 0),
                                 {layout.part<std::uint32_t>(scratch, 1), layout.part<std::int32_t>(scratch, 2),
                                  layout.part<rq_entry>(scratch, 3)}};
  algorithm::matmul_batches(d, a, b, out, atom);
}

}  // namespace tessera::kernels::arm_dsp
