// Reference batched matrix product of two run-time tensors (ONNX MatMul), with numpy
// broadcasting of the leading batch dimensions.
//
// Semantics: ../../../../docs/semantics.md ("MatMul").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include <tessera/core/requant.hpp>

namespace tessera::kernels::reference {

struct matmul_dims {
  int m, n, k;
  int batch_rank;                          // 0..3
  std::array<int, 3> batch{};              // output batch dims, outermost first
  std::array<std::int64_t, 3> a_stride{};  // element stride of A per batch dim (0 where A broadcasts)
  std::array<std::int64_t, 3> b_stride{};
  /// B is stored transposed, row-major [n][k] per batch (a Transpose folded into the MatMul:
  /// Q K^T reads the keys as they are cached). The optimized families decline it.
  bool b_transposed = false;
};

/// Scratch needed by `matmul`: none.
constexpr std::size_t matmul_scratch_bytes(const matmul_dims&) { return 0; }

/// out[b...][r][c] = sum_{t<k} a[b...][r][t] * b[b...][t][c]   (no bias in ONNX MatMul).
///
/// - `a`:   batches of row-major [m][k] matrices; the batch at output batch index (b0,b1,b2)
///          starts at sum_i b_i * a_stride[i] (a stride of 0 repeats A along that dim).
/// - `b`:   batches of row-major [k][n] matrices ([n][k] when `b_transposed`), addressed the
///          same way with `b_stride`.
/// - `out`: contiguous [batch...][m][n]; raw int32 accumulator when `rq.enabled` is false,
///          else `rq.apply(acc, flat_output_index)`.
/// - `scratch`: unused (matmul_scratch_bytes == 0).
/// Operands are 8-bit activations in the corpus; the int32 accumulator must not overflow.
template <class TA, class TB, class TOut>
constexpr void matmul(const matmul_dims& d, const TA* a, const TB* b, const requant_params& rq, TOut* out,
                      void* /*scratch*/) {
  // Pad the batch to 3 dims with leading extents of 1 so that three plain loops cover 0..3.
  std::array<int, 3> extent{1, 1, 1};
  std::array<std::int64_t, 3> as{0, 0, 0};
  std::array<std::int64_t, 3> bs{0, 0, 0};
  const int lead = 3 - d.batch_rank;
  for (int i = 0; i < d.batch_rank; ++i) {
    extent[lead + i] = d.batch[i];
    as[lead + i] = d.a_stride[i];
    bs[lead + i] = d.b_stride[i];
  }
  std::int64_t out_index = 0;
  for (int b0 = 0; b0 < extent[0]; ++b0) {
    for (int b1 = 0; b1 < extent[1]; ++b1) {
      for (int b2 = 0; b2 < extent[2]; ++b2) {
        const TA* a_mat = a + b0 * as[0] + b1 * as[1] + b2 * as[2];
        const TB* b_mat = b + b0 * bs[0] + b1 * bs[1] + b2 * bs[2];
        for (int r = 0; r < d.m; ++r) {
          for (int c = 0; c < d.n; ++c) {
            std::int32_t acc = 0;
            for (int t = 0; t < d.k; ++t) {
              const std::int64_t b_at = d.b_transposed ? std::int64_t{c} * d.k + t : std::int64_t{t} * d.n + c;
              acc += static_cast<std::int32_t>(a_mat[std::int64_t{r} * d.k + t]) * static_cast<std::int32_t>(b_mat[b_at]);
            }
            out[out_index] = static_cast<TOut>(rq.apply(acc, out_index));
            ++out_index;
          }
        }
      }
    }
  }
}

}  // namespace tessera::kernels::reference
