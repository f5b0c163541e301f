// arm_dsp MatMul of two activations: B ([k][n], 8-bit of either signedness) is transposed into
// scratch as [n][k] rows padded to whole words, which turns each batch into the fully connected
// case (gemm_rows.hpp) with B in the role of the weights. A broadcast B (stride 0) is
// transposed once for all the batches it serves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <tessera/core/requant.hpp>
#include <tessera/kernels/arm_dsp/gemm_rows.hpp>
#include <tessera/kernels/arm_dsp/traits.hpp>
#include <tessera/kernels/reference/matmul.hpp>

namespace tessera::kernels::arm_dsp {

/// out[b...][r][c] = sum_t a[b...][r][t] * b[b...][t][c] (no bias), NumPy batch broadcasting.
/// - `a`: batches of [m][k], `b`: batches of [k][n] (int8 or uint8 each), strides in `d`.
/// - `rq`: disabled (int32 output), per tensor or per output column (length n).
/// - `out`: contiguous [batch...][m][n].
/// - `scratch`: matmul_scratch_bytes(d) bytes, any alignment.
template <class TA, class TB, class TOut>
void matmul_transposed(const reference::matmul_dims& d, const TA* a, const TB* b, const requant_params& rq,
                       TOut* out, void* scratch) {
  const int groups = (d.k + 3) / 4;
  const int row = 4 * groups;
  auto* bt = static_cast<std::uint8_t*>(align8(scratch));
  void* rest = bt + round_up(std::size_t(d.n) * row, 8);  // keeps the gemm part 8-byte aligned
  std::int64_t extent[3] = {1, 1, 1}, as[3] = {0, 0, 0}, bs[3] = {0, 0, 0};
  const int lead = 3 - d.batch_rank;
  for (int i = 0; i < d.batch_rank; ++i) {
    extent[lead + i] = d.batch[static_cast<std::size_t>(i)];
    as[lead + i] = d.a_stride[static_cast<std::size_t>(i)];
    bs[lead + i] = d.b_stride[static_cast<std::size_t>(i)];
  }
  const auto* bb = reinterpret_cast<const std::uint8_t*>(b);
  const std::uint8_t* transposed = nullptr;
  const detail::weight_rows rows{bt, groups, 0};
  for (std::int64_t b0 = 0; b0 < extent[0]; ++b0) {
    for (std::int64_t b1 = 0; b1 < extent[1]; ++b1) {
      for (std::int64_t b2 = 0; b2 < extent[2]; ++b2) {
        const TA* a_mat = a + b0 * as[0] + b1 * as[1] + b2 * as[2];
        const std::uint8_t* b_mat = bb + b0 * bs[0] + b1 * bs[1] + b2 * bs[2];
        if (b_mat != transposed) {
          for (int c = 0; c < d.n; ++c) {
            std::uint8_t* dst = bt + std::size_t(c) * row;
            const std::uint8_t* src = b_mat + c;
            int t = 0;
            for (; t < d.k; ++t) dst[t] = src[std::int64_t{t} * d.n];
            for (; t < row; ++t) dst[t] = 0;
          }
          transposed = b_mat;
        }
        detail::matrix_product<std::is_signed_v<TB>>(d.m, d.n, d.k, a_mat, d.k, rows, nullptr, rq, out, rest);
        out += std::int64_t{d.m} * d.n;
      }
    }
  }
}

}  // namespace tessera::kernels::arm_dsp
