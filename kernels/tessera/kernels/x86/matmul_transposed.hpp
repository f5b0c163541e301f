// x86 MatMul of two activations: each B matrix ([k][n]) is transposed into scratch once, then
// the gemm micro-kernel multiplies rows of A by rows of B^T. Broadcast batches (stride 0)
// reuse the transposed matrix.
//
// Scratch: matmul_scratch (traits.hpp), n * k elements of TB.
#pragma once

#include <cstdint>

#include <tessera/kernels/algorithm/matmul.hpp>
#include <tessera/kernels/x86/gemm.hpp>

namespace tessera::kernels::x86 {

/// The MatMul atom (algorithm/matmul.hpp): B transposed to [n][k] in scratch, then gemm_rows.
template <class TA, class TB, class TOut>
struct matmul_atom {
  const reference::matmul_dims& d;
  TB* bt;
  epilogue<TOut> ep;
  const TB* rows = nullptr;  ///< B as [n][k] rows: bt, or B itself when it is stored transposed

  void load_b(const TB* b) {
    if (d.b_transposed) {  // a folded Transpose: B is [n][k] already, read where it is
      rows = b;
      return;
    }
    for (int t = 0; t < d.k; ++t) {
      const TB* src = b + std::int64_t(t) * d.n;
      for (int c = 0; c < d.n; ++c) bt[std::int64_t(c) * d.k + t] = src[c];
    }
    rows = bt;
  }
  void multiply(const TA* a, TOut* out, std::int64_t flat) { gemm_rows(d.m, d.n, d.k, a, rows, nullptr, ep, out, flat); }
};

/// Batched A @ B with numpy broadcasting of up to 3 batch dims (semantics: reference::matmul).
/// - a: batches of row-major [m][k], 8-bit;  b: batches of row-major [k][n] ([n][k] when
///   d.b_transposed: then read in place, the scratch unused), 8-bit
/// - out: contiguous [batch...][m][n]; int32 or requantized by flat output index
/// - scratch: matmul_scratch(d).total bytes
template <class TA, class TB, class TOut>
void matmul_transposed(const reference::matmul_dims& d, const TA* a, const TB* b, const requant_params& rq, TOut* out,
                       void* scratch) {
  matmul_atom<TA, TB, TOut> atom{d, matmul_scratch(d).part<TB>(scratch, 0), epilogue<TOut>(rq, d.m, d.n)};
  algorithm::matmul_batches(d, a, b, out, atom);
}

}  // namespace tessera::kernels::x86
