// x86 fully connected layer: rows of A in pairs against 4 weight rows at a time (gemm_tile.hpp).
// A single row (m == 1, the usual FC layer) runs a 1-row tile instead of a duplicated pair.
//
// Scratch: none (gemm_scratch_bytes is 0).
#pragma once

#include <cstdint>

#include <tessera/kernels/x86/gemm_tile.hpp>

namespace tessera::kernels::x86 {

/// A[m][k] x W[n][k]^T + bias (semantics: reference::gemm).
/// - a:    [m][k] 8-bit activations;  w: [n][k] 8-bit weights;  bias: [n] int32 or nullptr
/// - out:  [m][n]; int32 accumulators when rq is disabled, else requantized (per tensor, per
///         output feature and per row vectorized, other layouts per element)
/// Rows [row0, row0 + m) of a bigger output when called per tile: only the requantization
/// row and the flat index use row0/flat0.
template <class TA, class TW, class TOut>
void gemm_rows(int m, int n, int k, const TA* a, const TW* w, const std::int32_t* bias, const epilogue<TOut>& ep,
               TOut* out, std::int64_t flat0) {
  int r = 0;
  for (; r + 2 <= m; r += 2) {
    const TA* rows[2] = {a + std::int64_t(r) * k, a + std::int64_t(r + 1) * k};
    rows_times_weights<2>(rows, 2, w, k, n, bias, ep, out + std::int64_t(r) * n, r, flat0 + std::int64_t(r) * n);
  }
  if (r < m) {
    const TA* rows[1] = {a + std::int64_t(r) * k};
    rows_times_weights<1>(rows, 1, w, k, n, bias, ep, out + std::int64_t(r) * n, r, flat0 + std::int64_t(r) * n);
  }
}

template <class TA, class TW, class TOut>
void gemm(const reference::gemm_dims& d, const TA* a, const TW* w, const std::int32_t* bias, const requant_params& rq,
          TOut* out) {
  const epilogue<TOut> ep(rq, d.m, d.n);
  gemm_rows(d.m, d.n, d.k, a, w, bias, ep, out, 0);
}

}  // namespace tessera::kernels::x86
