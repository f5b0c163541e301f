// Reference Gather along one axis with constant indices (ONNX Gather on a run-time tensor:
// the class token of a ViT/CCT, rows of an embedding table). Values are copied unchanged.
//
// Semantics: ../../../../docs/semantics.md ("Gather").
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessera::kernels::reference {

/// The input seen as {outer, extent, inner} around the gathered axis.
struct gather_dims {
  std::int64_t outer = 1;
  std::int64_t extent = 1;
  std::int64_t inner = 1;
};

/// Scratch needed by `gather`: none.
constexpr std::size_t gather_scratch_bytes(const gather_dims&) { return 0; }

/// out[o][k][i] = in[o][indices[k]][i] for k < count.
///
/// - `in`:      row-major {outer, extent, inner}, any element type.
/// - `indices`: `count` values in [0, extent) (onnx2hpp normalizes negative ONNX indices).
/// - `out`:     row-major {outer, count, inner}; must not alias `in`.
template <class T, class TIndex>
constexpr void gather(const gather_dims& d, const T* in, const TIndex* indices, std::int64_t count, T* out) {
  for (std::int64_t o = 0; o < d.outer; ++o)
    for (std::int64_t k = 0; k < count; ++k) {
      const T* row = in + (o * d.extent + static_cast<std::int64_t>(indices[k])) * d.inner;
      for (std::int64_t i = 0; i < d.inner; ++i) *out++ = row[i];
    }
}

}  // namespace tessera::kernels::reference
