// rv32 fully connected layer (Gemm with B stored [n][k]): the generic row loop
// (algorithm/gemm.hpp) over pairs of rows of A, each pair multiplied by every group of 4
// weight rows with the 4x2 micro-kernel; a leftover row (all of them for the usual batch of 1)
// through the 4x1 kernel, where each weight is loaded for one MAC: 4 lb + 4 mul + 4 add + the
// activation per 4 MACs, about 3.3 instructions per MAC.
#pragma once

#include <cstddef>
#include <cstdint>

#include <tessera/core/requant.hpp>
#include <tessera/kernels/algorithm/gemm.hpp>
#include <tessera/kernels/common/requant_epilogue.hpp>
#include <tessera/kernels/reference/gemm.hpp>
#include <tessera/kernels/rv32/epilogue.hpp>
#include <tessera/kernels/rv32/micro_kernel.hpp>
#include <tessera/kernels/rv32/traits.hpp>

namespace tessera::kernels::rv32 {

/// The Gemm atom (algorithm/gemm.hpp): nothing to pack (rows of A are read in place), blocks of
/// 2 rows through the 4x2 kernel, leftover rows through the 4x1 kernel.
template <class TA, class TW, class TOut>
struct gemm_atom {
  static constexpr int rows = 2;
  int n, k;
  const TA* a;
  const TW* w;
  const std::int32_t* bias;
  store_plan plan;
  TOut* out;

  void pack(int, int) {}

  template <int C, int P>
  [[gnu::always_inline]] void channels(int r0, int c) {
    std::int32_t acc[C * P];
#pragma GCC unroll 4
    for (int i = 0; i < C; ++i) {
#pragma GCC unroll 2
      for (int p = 0; p < P; ++p) acc[i * P + p] = bias != nullptr ? bias[c + i] : 0;
    }
    const TA* rows_of_a[P];
#pragma GCC unroll 2
    for (int p = 0; p < P; ++p) rows_of_a[p] = a + std::ptrdiff_t(r0 + p) * k;
    dot_rows<C, P>(rows_of_a, w + std::ptrdiff_t(c) * k, k, k, acc);
    store_block<C, P>(acc, plan, r0, c, P, out + std::ptrdiff_t(r0) * n + c, n);
  }

  void compute(int r0, int count) {
    int c = 0;
    if (count == rows) {
      for (; c + 4 <= n; c += 4) channels<4, 2>(r0, c);
      for (; c < n; ++c) channels<1, 2>(r0, c);
    } else {
      for (; c + 4 <= n; c += 4) channels<4, 1>(r0, c);
      for (; c < n; ++c) channels<1, 1>(r0, c);
    }
  }
};

/// Fully connected: out[r][c] = bias[c] + sum_t a[r][t] * w[c][t].
/// - `a`:    [m][k], int8 or uint8.
/// - `w`:    [n][k], int8 or uint8.
/// - `bias`: [n] int32 or nullptr.
/// - `rq`:   disabled (int32 output), per tensor, per output feature (length n) or per row
///           (length m, inner n).
/// - `out`:  [m][n].
/// - `scratch`: none.
template <class TA, class TW, class TOut>
void gemm_rows(const reference::gemm_dims& d, const TA* a, const TW* w, const std::int32_t* bias,
               const requant_params& rq, TOut* out, void* /*scratch*/) {
  const bool rowwise = is_rowwise(rq, d.m, d.n);
  high_form table[table_capacity];
  const store_plan plan = make_plan(rq, d.n, rowwise, acc_bound<TA, TW>(d.k, bias, d.n), table);
  gemm_atom<TA, TW, TOut> atom{d.n, d.k, a, w, bias, plan, out};
  algorithm::gemm_row_blocks(d.m, atom);
}

}  // namespace tessera::kernels::rv32
