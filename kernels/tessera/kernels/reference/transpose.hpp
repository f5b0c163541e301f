// Reference axis permutation (ONNX Transpose).
//
// Semantics: ../../../../docs/semantics.md ("Transpose").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include <tessera/core/shape.hpp>

namespace tessera::kernels::reference {

/// Output dim i is in[perm[i]] and out[i0, i1, ...] = in[j] with j[perm[i]] = i_i
/// (ONNX semantics; e.g. NCHW -> NHWC is perm {0, 2, 3, 1}).
struct transpose_dims {
  int rank;
  std::array<int, max_rank> in{}, perm{};
};

/// Scratch needed by `transpose`: none.
constexpr std::size_t transpose_scratch_bytes(const transpose_dims&) { return 0; }

/// - `in`:  row-major over `d.in`, any element type.
/// - `out`: row-major over (in[perm[0]], in[perm[1]], ...); values copied unchanged; must not
///          alias `in`.
template <class T>
constexpr void transpose(const transpose_dims& d, const T* in, T* out) {
  std::array<std::int64_t, max_rank> in_stride{};
  std::int64_t stride = 1;
  for (int ax = d.rank - 1; ax >= 0; --ax) {
    in_stride[ax] = stride;
    stride *= d.in[ax];
  }
  std::array<int, max_rank> out_dim{};
  std::int64_t total = 1;
  for (int i = 0; i < d.rank; ++i) {
    out_dim[i] = d.in[d.perm[i]];
    total *= out_dim[i];
  }
  std::array<int, max_rank> idx{};  // output coordinate, advanced like an odometer
  for (std::int64_t o = 0; o < total; ++o) {
    std::int64_t in_off = 0;
    for (int i = 0; i < d.rank; ++i) in_off += std::int64_t{idx[i]} * in_stride[d.perm[i]];
    out[o] = in[in_off];
    for (int i = d.rank - 1; i >= 0; --i) {
      if (++idx[i] < out_dim[i]) break;
      idx[i] = 0;
    }
  }
}

}  // namespace tessera::kernels::reference
