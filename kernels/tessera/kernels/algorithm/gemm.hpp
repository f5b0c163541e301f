// The row loop of a matrix product (Gemm, MatMul, and convolutions that are one), written once:
// rows of A in blocks of the micro-tile's rows, then the leftover rows one at a time (a fully
// connected layer's batch of 1 is all leftover). Families supply the steps as an `Atom`
// (concept `gemm_atom`):
//   static constexpr int rows             rows per block
//   void pack(int r0, int count)          rows [r0, r0 + count) of A into the kernel's form
//   void compute(int r0, int count)       the block micro-kernel (count == rows) or the one-row
//                                         kernel (count == 1) against every weight row, and the
//                                         rows' requantized outputs
#pragma once

#include <concepts>

namespace tessera::kernels::algorithm {

template <class Atom>
concept gemm_atom = requires(Atom& atom, int r) {
  { Atom::rows } -> std::convertible_to<int>;
  atom.pack(r, r);
  atom.compute(r, r);
};

template <gemm_atom Atom>
void gemm_row_blocks(int m, Atom& atom) {
  constexpr int block = Atom::rows;
  int r = 0;
  for (; r + block <= m; r += block) {
    atom.pack(r, block);
    atom.compute(r, block);
  }
  for (; r < m; ++r) {
    atom.pack(r, 1);
    atom.compute(r, 1);
  }
}

}  // namespace tessera::kernels::algorithm
