// x86 fully connected layer: the generic row loop (algorithm/gemm.hpp), rows of A in pairs
// against 4 weight rows at a time (gemm_tile.hpp). A single row (m == 1, the usual FC layer)
// runs a 1-row tile instead of a duplicated pair.
//
// Scratch: none (gemm_scratch_bytes is 0).
#pragma once

#include <cstdint>

#include <tessera/kernels/algorithm/gemm.hpp>
#include <tessera/kernels/x86/gemm_tile.hpp>

namespace tessera::kernels::x86 {

/// The Gemm atom (algorithm/gemm.hpp): A's rows feed the micro-kernel in place, widened on the
/// fly; blocks of 2 rows, a leftover row through a 1-row tile.
template <class TA, class TW, class TOut>
struct gemm_atom {
  static constexpr int rows = tile_pixels;
  int n, k;
  const TA* a;
  const TW* w;
  const std::int32_t* bias;
  const epilogue<TOut>& ep;
  TOut* out;
  std::int64_t flat0;

  void pack(int, int) {}
  void compute(int r, int count) {
    const std::int64_t at = std::int64_t(r) * n;
    if (count == rows) {
      const TA* block[2] = {a + std::int64_t(r) * k, a + std::int64_t(r + 1) * k};
      rows_times_weights<2>(block, 2, w, k, n, bias, ep, out + at, r, flat0 + at);
    } else {
      const TA* row[1] = {a + std::int64_t(r) * k};
      rows_times_weights<1>(row, 1, w, k, n, bias, ep, out + at, r, flat0 + at);
    }
  }
};

/// A[m][k] x W[n][k]^T + bias (semantics: reference::gemm).
/// - a:    [m][k] 8-bit activations;  w: [n][k] 8-bit weights;  bias: [n] int32 or nullptr
/// - out:  [m][n]; int32 accumulators when rq is disabled, else requantized (per tensor, per
///         output feature and per row vectorized, other layouts per element)
/// `flat0` is the flat index of out[0] in the requantized tensor (a batch of a MatMul).
template <class TA, class TW, class TOut>
void gemm_rows(int m, int n, int k, const TA* a, const TW* w, const std::int32_t* bias, const epilogue<TOut>& ep,
               TOut* out, std::int64_t flat0) {
  gemm_atom<TA, TW, TOut> atom{n, k, a, w, bias, ep, out, flat0};
  algorithm::gemm_row_blocks(m, atom);
}

template <class TA, class TW, class TOut>
void gemm(const reference::gemm_dims& d, const TA* a, const TW* w, const std::int32_t* bias, const requant_params& rq,
          TOut* out) {
  const epilogue<TOut> ep(rq, d.m, d.n);
  gemm_rows(d.m, d.n, d.k, a, w, bias, ep, out, 0);
}

}  // namespace tessera::kernels::x86
