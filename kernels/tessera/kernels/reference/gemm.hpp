// Reference fully connected layer (ONNX Gemm with alpha = beta = 1 and constant, transposed B).
//
// Semantics: ../../../../docs/semantics.md ("Gemm").
#pragma once

#include <cstddef>
#include <cstdint>

#include <tessera/core/requant.hpp>

namespace tessera::kernels::reference {

struct gemm_dims {
  int m, n, k;
};

/// Scratch needed by `gemm`: none.
constexpr std::size_t gemm_scratch_bytes(const gemm_dims&) { return 0; }

/// out[r][c] = bias[c] + sum_{t<k} a[r][t] * w[c][t].
///
/// - `a`:    [m][k] activations, true values (u8 or s8 in the corpus).
/// - `w`:    [n][k], the ONNX B operand stored transposed (transB = 1) so that each output
///           column reads one contiguous row of weights; s8 in the corpus.
/// - `bias`: [n] int32 (ONNX C broadcast over rows), or nullptr.
/// - `out`:  [m][n]; raw int32 accumulator when `rq.enabled` is false, else
///           `rq.apply(acc, r*n + c)` (per-output-feature requant: length n, inner 1).
/// - `scratch`: unused (gemm_scratch_bytes == 0).
/// Accumulation is int32 as on the device; the caller guarantees that it does not overflow.
template <class TA, class TW, class TOut>
constexpr void gemm(const gemm_dims& d, const TA* a, const TW* w, const std::int32_t* bias, const requant_params& rq,
                    TOut* out, void* /*scratch*/) {
  for (int r = 0; r < d.m; ++r) {
    for (int c = 0; c < d.n; ++c) {
      std::int32_t acc = bias != nullptr ? bias[c] : 0;
      for (int t = 0; t < d.k; ++t) {
        acc += static_cast<std::int32_t>(a[std::int64_t{r} * d.k + t]) *
               static_cast<std::int32_t>(w[std::int64_t{c} * d.k + t]);
      }
      const std::int64_t out_index = std::int64_t{r} * d.n + c;
      out[out_index] = static_cast<TOut>(rq.apply(acc, out_index));
    }
  }
}

}  // namespace tessera::kernels::reference
