// rv32 MatMul of two activations: the generic batch loop (algorithm/matmul.hpp) and row loop
// (algorithm/gemm.hpp). B ([k][n]) is not transposed: 4 adjacent columns of B are 4 adjacent
// bytes of each of its rows, which the 4x2 kernel loads with immediate offsets, stepping one
// pointer by n per reduction element (dot_columns). So `load_b` only records the matrix, and
// like the rest of the family the kernel needs no scratch.
#pragma once

#include <cstddef>
#include <cstdint>

#include <tessera/core/requant.hpp>
#include <tessera/kernels/algorithm/gemm.hpp>
#include <tessera/kernels/algorithm/matmul.hpp>
#include <tessera/kernels/reference/matmul.hpp>
#include <tessera/kernels/rv32/epilogue.hpp>
#include <tessera/kernels/rv32/micro_kernel.hpp>
#include <tessera/kernels/rv32/traits.hpp>

namespace tessera::kernels::rv32 {

/// One batch's product as a row-loop atom: rows of A in pairs, columns of B in fours.
template <class TA, class TB, class TOut>
struct matmul_rows_atom {
  static constexpr int rows = 2;
  int n, k;
  const TA* a;
  const TB* b;
  const store_plan& plan;
  TOut* out;

  void pack(int, int) {}

  template <int C, int P>
  [[gnu::always_inline]] void columns(int r0, int c) {
    std::int32_t acc[C * P] = {};
    const TA* rows_of_a[P];
#pragma GCC unroll 2
    for (int p = 0; p < P; ++p) rows_of_a[p] = a + std::ptrdiff_t(r0 + p) * k;
    dot_columns<C, P>(rows_of_a, b + c, n, k, acc);
    store_block<C, P>(acc, plan, r0, c, P, out + std::ptrdiff_t(r0) * n + c, n);
  }

  void compute(int r0, int count) {
    int c = 0;
    if (count == rows) {
      for (; c + 4 <= n; c += 4) columns<4, 2>(r0, c);
      for (; c < n; ++c) columns<1, 2>(r0, c);
    } else {
      for (; c + 4 <= n; c += 4) columns<4, 1>(r0, c);
      for (; c < n; ++c) columns<1, 1>(r0, c);
    }
  }
};

/// The MatMul atom (algorithm/matmul.hpp): B of the batch is used in place.
template <class TA, class TB, class TOut>
struct matmul_atom {
  const reference::matmul_dims& d;
  store_plan plan;
  const TB* b = nullptr;

  void load_b(const TB* batch_b) { b = batch_b; }
  void multiply(const TA* a, TOut* out, std::int64_t) {
    matmul_rows_atom<TA, TB, TOut> rows{d.n, d.k, a, b, plan, out};
    algorithm::gemm_row_blocks(d.m, rows);
  }
};

/// out[b...][r][c] = sum_t a[b...][r][t] * b[b...][t][c] (no bias), NumPy batch broadcasting.
/// - `a`: batches of [m][k], `b`: batches of [k][n] (int8 or uint8 each), strides in `d`.
/// - `rq`: disabled (int32 output), per tensor or per output column (length n).
/// - `out`: contiguous [batch...][m][n].
/// - `scratch`: none.
template <class TA, class TB, class TOut>
void matmul_columns(const reference::matmul_dims& d, const TA* a, const TB* b, const requant_params& rq, TOut* out,
                    void* /*scratch*/) {
  high_form table[table_capacity];
  const store_plan plan = make_plan(rq, d.n, false, acc_bound<TA, TB>(d.k, nullptr, 0), table);
  matmul_atom<TA, TB, TOut> atom{d, plan};
  algorithm::matmul_batches(d, a, b, out, atom);
}

}  // namespace tessera::kernels::rv32
