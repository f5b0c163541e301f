// Reference constant padding (ONNX Pad, mode "constant", non-negative pads).
//
// Semantics: ../../../../docs/semantics.md ("Pad").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include <tessera/core/shape.hpp>

namespace tessera::kernels::reference {

struct pad_dims {
  int rank;
  std::array<int, max_rank> in{}, before{}, after{};  // out[i] = in[i] + before[i] + after[i], all >= 0
};

/// Scratch needed by `pad`: none.
constexpr std::size_t pad_scratch_bytes(const pad_dims&) { return 0; }

/// out[idx] = in[idx - before] where that lies inside `in`, else `value`.
///
/// - `in`:    row-major over `d.in`, any element type (8-bit in the corpus).
/// - `value`: the fill, a true value of T (ONNX constant_value, 0 when absent).
/// - `out`:   row-major over in[i] + before[i] + after[i]; must not alias `in`.
template <class T>
constexpr void pad(const pad_dims& d, const T* in, T value, T* out) {
  std::array<int, max_rank> out_dim{};
  std::array<std::int64_t, max_rank> in_stride{};
  std::int64_t total = 1;
  std::int64_t stride = 1;
  for (int ax = d.rank - 1; ax >= 0; --ax) {
    out_dim[ax] = d.in[ax] + d.before[ax] + d.after[ax];
    total *= out_dim[ax];
    in_stride[ax] = stride;
    stride *= d.in[ax];
  }
  std::array<int, max_rank> idx{};  // output coordinate, advanced like an odometer
  for (std::int64_t o = 0; o < total; ++o) {
    bool inside = true;
    std::int64_t in_off = 0;
    for (int ax = 0; ax < d.rank; ++ax) {
      const int src = idx[ax] - d.before[ax];
      if (src < 0 || src >= d.in[ax]) inside = false;
      in_off += std::int64_t{src} * in_stride[ax];
    }
    out[o] = inside ? in[in_off] : value;
    for (int ax = d.rank - 1; ax >= 0; --ax) {
      if (++idx[ax] < out_dim[ax]) break;
      idx[ax] = 0;
    }
  }
}

}  // namespace tessera::kernels::reference
