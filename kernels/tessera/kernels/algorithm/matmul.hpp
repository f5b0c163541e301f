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

}  // namespace tessera::kernels::algorithm
