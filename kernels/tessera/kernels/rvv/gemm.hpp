// rvv fully connected layer: the generic row loop (algorithm/gemm.hpp), blocks of 6 rows of A
// interleaved into scratch and leftover rows (a batch of 1) read in place, through the
// channels-in-lanes micro-kernel (mat_mult.hpp), then each row's requantization. MatMul
// (matmul.hpp) runs the same atom over B in place.
#pragma once

#include <cstdint>

#include <tessera/core/requant.hpp>
#include <tessera/kernels/algorithm/gemm.hpp>
#include <tessera/kernels/arch/rvv.hpp>
#include <tessera/kernels/common/requant_epilogue.hpp>
#include <tessera/kernels/reference/gemm.hpp>
#include <tessera/kernels/rvv/mat_mult.hpp>
#include <tessera/kernels/rvv/requant.hpp>
#include <tessera/kernels/rvv/traits.hpp>

namespace tessera::kernels::rvv {

namespace detail {

/// The matrix-product atom (algorithm/gemm.hpp) shared by Gemm and MatMul: `Contiguous` when the
/// weights of consecutive channels are adjacent (MatMul's [k][n] B). `rowwise`: Gemm requantized
/// per row.
template <bool Contiguous, class TA, class TW, class TOut>
struct product_atom {
  static constexpr int rows = block_rows;
  int n, k;
  const TA* a;
  weight_view<TW> w;
  const std::int32_t* bias;
  const requant_params& rq;
  bool rowwise;
  std::int32_t* acc;
  TA* packed;
  TOut* out;
  const TA* x = nullptr;

  void pack(int r0, int count) {
    const TA* first = a + std::ptrdiff_t(r0) * k;
    if (count == 1) {
      x = first;
      return;
    }
    for (int r = 0; r < count; ++r)  // count == block_rows here (leftover rows come one at a time)
      arch::rvv::copy_strided(reinterpret_cast<std::uint8_t*>(packed + r),
                              reinterpret_cast<const std::uint8_t*>(first + std::ptrdiff_t(r) * k), block_rows, k);
    x = packed;
  }
  void compute(int r0, int count) {
    mac_block<Contiguous, false>(x, count, k, w, bias, n, acc);
    const row_requant channel = channel_requant_of(rq);
    for (int r = 0; r < count; ++r)
      requant_row(rowwise ? row_requant_of(rq, r0 + r) : channel, acc + r * n, n, out + std::ptrdiff_t(r0 + r) * n);
  }
};

}  // namespace detail

/// out[r][c] = bias[c] + sum_t a[r][t] * w[c][t] (reference::gemm's contract, bit-exact).
///
/// - `a`: [m][k] int8 or uint8; `w`: [n][k] int8; `bias`: [n] int32 or null.
/// - `rq`: disabled, per tensor, per output feature (length n) or per row (length m, inner n).
/// - `out`: [m][n]; `scratch`: gemm_scratch(d).total bytes, any alignment.
template <class TA, class TOut>
void gemm(const reference::gemm_dims& d, const TA* a, const std::int8_t* w, const std::int32_t* bias,
          const requant_params& rq, TOut* out, void* scratch) {
  if (d.m <= 0 || d.n <= 0) return;
  const auto layout = gemm_scratch(d);
  detail::product_atom<false, TA, std::int8_t, TOut> atom{d.n,  d.k, a, {w, d.k, 1}, bias, rq, is_rowwise(rq, d.m, d.n),
                                                          layout.part<std::int32_t>(scratch, 1),
                                                          layout.part<TA>(scratch, 0), out};
  algorithm::gemm_row_blocks(d.m, atom);
}

}  // namespace tessera::kernels::rvv
