// Reference strided slice (ONNX Slice, after normalization of starts/ends/steps).
//
// Semantics: ../../../../docs/semantics.md ("Slice").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include <tessera/core/shape.hpp>

namespace tessera::kernels::reference {

/// Per axis: out[idx] = in[start + idx*step]. `step` is nonzero and may be negative; `start`
/// is already normalized into [0, in) and `out` already computed from ONNX ends, so every
/// read lies inside `in`. Axes not sliced have start 0, step 1, out == in.
struct slice_dims {
  int rank;
  std::array<int, max_rank> in{}, out{}, start{}, step{};
};

/// Scratch needed by `slice`: none.
constexpr std::size_t slice_scratch_bytes(const slice_dims&) { return 0; }

/// - `in`:  row-major over `d.in`, any element type.
/// - `out`: row-major over `d.out`; values copied unchanged; must not alias `in`.
template <class T>
constexpr void slice(const slice_dims& d, const T* in, T* out) {
  std::array<std::int64_t, max_rank> in_stride{};
  std::int64_t total = 1;
  std::int64_t stride = 1;
  for (int ax = d.rank - 1; ax >= 0; --ax) {
    in_stride[ax] = stride;
    stride *= d.in[ax];
    total *= d.out[ax];
  }
  std::array<int, max_rank> idx{};  // output coordinate, advanced like an odometer
  for (std::int64_t o = 0; o < total; ++o) {
    std::int64_t in_off = 0;
    for (int ax = 0; ax < d.rank; ++ax) {
      in_off += (std::int64_t{d.start[ax]} + std::int64_t{idx[ax]} * d.step[ax]) * in_stride[ax];
    }
    out[o] = in[in_off];
    for (int ax = d.rank - 1; ax >= 0; --ax) {
      if (++idx[ax] < d.out[ax]) break;
      idx[ax] = 0;
    }
  }
}

}  // namespace tessera::kernels::reference
