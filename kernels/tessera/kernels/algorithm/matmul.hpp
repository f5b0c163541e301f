// The batch loop of MatMul (NumPy broadcasting of up to 3 batch dims), written once: each
// distinct B matrix is prepared once (transposed to the weights' [n][k] form, which turns the
// batch into a Gemm) and reused by the batches that broadcast it (stride 0). Families supply:
//   void load_b(const TB* b)                              B of one batch, [k][n]
//   void multiply(const TA* a, TOut* out, std::int64_t flat)   one batch's [m][k] x [k][n]
#pragma once

#include <cstdint>

#include <tessera/kernels/reference/matmul.hpp>

namespace tessera::kernels::algorithm {

template <class Atom, class TA, class TB, class TOut>
concept matmul_atom = requires(Atom& atom, const TA* a, const TB* b, TOut* out) {
  atom.load_b(b);
  atom.multiply(a, out, std::int64_t{0});
};

template <class Atom, class TA, class TB, class TOut>
  requires matmul_atom<Atom, TA, TB, TOut>
void matmul_batches(const reference::matmul_dims& d, const TA* a, const TB* b, TOut* out, Atom& atom) {
  int extent[3] = {1, 1, 1};
  std::int64_t as[3] = {0, 0, 0}, bs[3] = {0, 0, 0};
  const int lead = 3 - d.batch_rank;
  for (int i = 0; i < d.batch_rank; ++i) {
    extent[lead + i] = d.batch[std::size_t(i)];
    as[lead + i] = d.a_stride[std::size_t(i)];
    bs[lead + i] = d.b_stride[std::size_t(i)];
  }
  const TB* loaded = nullptr;  // the B matrix the atom holds
  std::int64_t flat = 0;
  for (int b0 = 0; b0 < extent[0]; ++b0) {
    for (int b1 = 0; b1 < extent[1]; ++b1) {
      for (int b2 = 0; b2 < extent[2]; ++b2) {
        const TA* a_mat = a + b0 * as[0] + b1 * as[1] + b2 * as[2];
        const TB* b_mat = b + b0 * bs[0] + b1 * bs[1] + b2 * bs[2];
        if (b_mat != loaded) {
          atom.load_b(b_mat);
          loaded = b_mat;
        }
        atom.multiply(a_mat, out + flat, flat);
        flat += std::int64_t(d.m) * d.n;
      }
    }
  }
}

/// The MatMul atom for few rows and columns (a decoder step: one query row times V, n = head
/// dim): each row of B, read where it is as [k][n], is added into the row's n sums scaled by A's
/// entry, so B is never transposed or packed (for m = 1 the packing cost as much as the
/// product). Integer sums in the reference's order, requantized as it does (`rq.apply` by flat
/// output index): bit-exact by construction, for any family to use where `fits`.
template <class TA, class TB, class TOut>
struct row_accumulate_atom {
  static constexpr int max_columns = 16;
  /// Worth it below a few rows (a packed product amortizes its packing over them).
  static constexpr bool fits(const reference::matmul_dims& d) {
    return !d.b_transposed && d.m <= 2 && d.n >= 1 && d.n <= max_columns;
  }

  const reference::matmul_dims& d;
  const requant_params& rq;
  const TB* b_mat = nullptr;

  void load_b(const TB* b) { b_mat = b; }
  void multiply(const TA* a, TOut* out, std::int64_t flat) {
    // The head dims of decoders, with the sums in registers and the column loop unrolled.
    switch (d.n) {
      case 4: return rows<4>(a, out, flat);
      case 8: return rows<8>(a, out, flat);
      case 16: return rows<16>(a, out, flat);
      default: return rows<0>(a, out, flat);
    }
  }

 private:
  /// `N` columns (0: d.n at run time).
  template <int N>
  void rows(const TA* a, TOut* out, std::int64_t flat) {
    const int n = N > 0 ? N : d.n;
    for (int r = 0; r < d.m; ++r, a += d.k, out += n, flat += n) {
      std::int32_t acc[N > 0 ? N : max_columns] = {};
      const TB* row = b_mat;
      for (int t = 0; t < d.k; ++t, row += n) {
        const std::int32_t w = a[t];
        // Unrolled so that the sums stay in registers (GCC -O2 keeps a rolled loop's in memory).
#pragma GCC unroll 16
        for (int c = 0; c < n; ++c) acc[c] += w * static_cast<std::int32_t>(row[c]);
      }
      for (int c = 0; c < n; ++c) out[c] = static_cast<TOut>(rq.apply(acc[c], flat + c));
    }
  }
};

}  // namespace tessera::kernels::algorithm
