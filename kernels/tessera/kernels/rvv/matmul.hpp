// rvv MatMul of two activations: each batch's [m][k] x [k][n] through the Gemm atom with B read
// in place (its rows are the channel vectors the micro-kernel loads, unit-stride), and no
// correction for uint8 operands (both widen exactly to int16). The batch loop with
// broadcasting is algorithm/matmul.hpp's.
#pragma once

#include <cstdint>

#include <tessera/core/requant.hpp>
#include <tessera/kernels/algorithm/matmul.hpp>
#include <tessera/kernels/reference/matmul.hpp>
#include <tessera/kernels/rvv/gemm.hpp>
#include <tessera/kernels/rvv/traits.hpp>

namespace tessera::kernels::rvv {

/// out[b...][r][c] = sum_t a[b...][r][t] * b[b...][t][c] (reference::matmul's contract, bit-exact).
///
/// - `a`, `b`: 8-bit, signed or not, batches addressed by d.a_stride / d.b_stride (0 broadcasts).
/// - `rq`: disabled, per tensor or per column (length n).
/// - `out`: contiguous [batch...][m][n]; `scratch`: matmul_scratch(d).total bytes.
template <class TA, class TB, class TOut>
void matmul(const reference::matmul_dims& d, const TA* a, const TB* b, const requant_params& rq, TOut* out,
            void* scratch) {
  if (d.m <= 0 || d.n <= 0) return;
  const auto layout = matmul_scratch(d);
  struct batches {
    const reference::matmul_dims& d;
    const requant_params& rq;
    std::int32_t* acc;
    TA* packed;
    const TB* b_mat = nullptr;

    void load_b(const TB* b_in) { b_mat = b_in; }
    void multiply(const TA* a_mat, TOut* o, std::int64_t) {
      detail::product_atom<true, TA, TB, TOut> atom{d.n, d.k, a_mat, {b_mat, 1, d.n}, nullptr, rq, false,
                                                    acc, packed, o};
      algorithm::gemm_row_blocks(d.m, atom);
    }
  } atom{d, rq, layout.part<std::int32_t>(scratch, 1), layout.part<TA>(scratch, 0)};
  algorithm::matmul_batches(d, a, b, out, atom);
}

}  // namespace tessera::kernels::rvv
