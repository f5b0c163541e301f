// Reference concatenation along one axis (ONNX Concat).
//
// Semantics: ../../../../docs/semantics.md ("Concat").
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessera::kernels::reference {

/// Scratch needed by `concat`: none.
constexpr std::size_t concat_scratch_bytes(std::int64_t /*outer*/, std::int64_t /*inner*/, int /*n_inputs*/,
                                           const int* /*axis_extents*/) {
  return 0;
}

/// Concatenates `n_inputs` row-major tensors that agree on every dim but the concat axis.
/// Viewing input j as [outer][axis_extents[j]][inner] (outer = product of dims before the
/// axis, inner = product after it), the output is [outer][sum_j axis_extents[j]][inner]:
/// for each o < outer, the blocks inputs[j][o*axis_extents[j]*inner ...] of
/// axis_extents[j]*inner elements, in j order. Values are copied unchanged (the corpus
/// concatenates 8-bit tensors of the same type and requant).
template <class T>
constexpr void concat(std::int64_t outer, std::int64_t inner, int n_inputs, const T* const* inputs,
                      const int* axis_extents, T* out) {
  std::int64_t o_off = 0;
  for (std::int64_t o = 0; o < outer; ++o) {
    for (int j = 0; j < n_inputs; ++j) {
      const std::int64_t block = std::int64_t{axis_extents[j]} * inner;
      const T* src = inputs[j] + o * block;
      for (std::int64_t e = 0; e < block; ++e) out[o_off++] = src[e];
    }
  }
}

}  // namespace tessera::kernels::reference
