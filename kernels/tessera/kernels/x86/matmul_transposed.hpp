// x86 MatMul of two activations: each B matrix ([k][n]) is transposed into scratch once, then
// the gemm micro-kernel multiplies rows of A by rows of B^T. Broadcast batches (stride 0)
// reuse the transposed matrix.
//
// Scratch: matmul_scratch_bytes (traits.hpp), n * k elements of TB.
#pragma once

#include <array>
#include <cstdint>

#include <tessera/kernels/x86/gemm.hpp>

namespace tessera::kernels::x86 {

/// Batched A @ B with numpy broadcasting of up to 3 batch dims (semantics: reference::matmul).
/// - a: batches of row-major [m][k], 8-bit;  b: batches of row-major [k][n], 8-bit
/// - out: contiguous [batch...][m][n]; int32 or requantized by flat output index
/// - scratch: matmul_scratch_bytes(d) bytes
template <class TA, class TB, class TOut>
void matmul_transposed(const reference::matmul_dims& d, const TA* a, const TB* b, const requant_params& rq, TOut* out,
                       void* scratch) {
  std::array<int, 3> extent{1, 1, 1};
  std::array<std::int64_t, 3> as{0, 0, 0};
  std::array<std::int64_t, 3> bs{0, 0, 0};
  const int lead = 3 - d.batch_rank;
  for (int i = 0; i < d.batch_rank; ++i) {
    extent[lead + i] = d.batch[i];
    as[lead + i] = d.a_stride[i];
    bs[lead + i] = d.b_stride[i];
  }
  auto* bt = static_cast<TB*>(scratch);
  const TB* transposed = nullptr;  // the B matrix currently in scratch
  const epilogue<TOut> ep(rq, d.m, d.n);
  std::int64_t flat = 0;
  for (int b0 = 0; b0 < extent[0]; ++b0) {
    for (int b1 = 0; b1 < extent[1]; ++b1) {
      for (int b2 = 0; b2 < extent[2]; ++b2) {
        const TA* a_mat = a + b0 * as[0] + b1 * as[1] + b2 * as[2];
        const TB* b_mat = b + b0 * bs[0] + b1 * bs[1] + b2 * bs[2];
        if (b_mat != transposed) {
          for (int t = 0; t < d.k; ++t) {
            const TB* src = b_mat + std::int64_t(t) * d.n;
            for (int c = 0; c < d.n; ++c) bt[std::int64_t(c) * d.k + t] = src[c];
          }
          transposed = b_mat;
        }
        gemm_rows(d.m, d.n, d.k, a_mat, static_cast<const TB*>(bt), nullptr, ep, out + flat, flat);
        flat += std::int64_t(d.m) * d.n;
      }
    }
  }
}

}  // namespace tessera::kernels::x86
