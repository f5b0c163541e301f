// The register-blocked micro-kernel shared by conv2d (im2col and pointwise), gemm and matmul:
// R rows of A (im2col rows, input pixels, activation rows) times 4 rows of weights, PMADDWD
// over k, and the epilogue of the R x 4 outputs.
//
// Per k-step (8 with SSE4.1, 16 with AVX2) the tile loads R activation vectors once and each
// weight vector once (widening 8-bit data with PMOVSX/ZX), so every widened value feeds R or 4
// multiply-adds. R = 2, 4 channels: 8 accumulators + 2 activations + 1 weight = 11 registers
// of the 16 there are, which leaves the compiler room to schedule.
#pragma once

#include <cstdint>

#include <tessera/kernels/arch/x86.hpp>
#include <tessera/kernels/x86/requant_epilogue.hpp>
#include <tessera/kernels/x86/traits.hpp>

namespace tessera::kernels::x86 {

/// One k-step of A: int16 rows (im2col, padded with zeros to a multiple of `k_pad`, so a
/// full vector may always be read) or 8-bit rows widened on the fly.
template <class TA>
inline ax::vwide load_a(const TA* p) {
  if constexpr (sizeof(TA) == 2) return ax::wide_load(p);
  else return ax::wide_load_widen<TA>(p);
}
/// The last, partial k-step: `n` valid elements (the padding of int16 rows reads as 0).
template <class TA>
inline ax::vwide load_a_tail(const TA* p, int n) {
  if constexpr (sizeof(TA) == 2) return ax::wide_load(p);
  else return ax::wide_load_widen_partial<TA>(p, n);
}

/// out[r] = {dot(a[r], b[0]), .., dot(a[r], b[3])} over k elements, int32 (wrapping, which
/// equals the reference whenever its sum does not overflow).
/// - a: R rows of TA (int16 padded as above, or 8-bit with exactly k readable elements)
/// - b: 4 rows of 8-bit weights with exactly k readable elements
template <int R, class TA, class TB>
inline void dot_tile(const TA* const (&a)[R], const TB* const (&b)[4], int k, ax::v128 (&out)[R]) {
  using ax::vwide;
  vwide acc[R][4];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < 4; ++c) acc[r][c] = ax::wide_zero();
  const int k_full = k - k % ax::wide_i16;
  int t = 0;
  for (; t < k_full; t += ax::wide_i16) {
    vwide av[R];
    for (int r = 0; r < R; ++r) av[r] = load_a(a[r] + t);
    for (int c = 0; c < 4; ++c) {
      const vwide bv = ax::wide_load_widen<TB>(b[c] + t);
      for (int r = 0; r < R; ++r) acc[r][c] = ax::wide_add32(acc[r][c], ax::wide_madd16(av[r], bv));
    }
  }
  if (t < k) {
    const int n = k - t;
    vwide av[R];
    for (int r = 0; r < R; ++r) av[r] = load_a_tail(a[r] + t, n);
    for (int c = 0; c < 4; ++c) {
      const vwide bv = ax::wide_load_widen_partial<TB>(b[c] + t, n);
      for (int r = 0; r < R; ++r) acc[r][c] = ax::wide_add32(acc[r][c], ax::wide_madd16(av[r], bv));
    }
  }
  for (int r = 0; r < R; ++r) out[r] = ax::wide_hsum4(acc[r][0], acc[r][1], acc[r][2], acc[r][3]);
}

/// R rows of A against all n weight rows, in tiles of 4 channels: output row r (r < rows)
/// is out[r*n .. r*n + n), with flat index flat0 + r*n + c and requantization row row0 + r.
/// A channel leftover repeats the last weight row and stores only the valid lanes.
/// - w:    [n][k] 8-bit weights;  bias: [n] int32 or nullptr
template <int R, class TA, class TW, class TOut>
inline void rows_times_weights(const TA* const (&a)[R], int rows, const TW* w, int k, int n, const std::int32_t* bias,
                               const epilogue<TOut>& ep, TOut* out, int row0, std::int64_t flat0) {
  for (int c = 0; c < n; c += tile_channels) {
    const int nc = n - c < tile_channels ? n - c : tile_channels;
    const TW* b[4];
    for (int j = 0; j < 4; ++j) b[j] = w + std::int64_t(c + (j < nc ? j : nc - 1)) * k;
    ax::v128 sums[R];
    dot_tile<R>(a, b, k, sums);
    if (bias != nullptr) {
      const ax::v128 bv = nc == 4 ? ax::load128(bias + c) : ax::load128_partial(bias + c, 4 * nc);
      for (int r = 0; r < R; ++r) sums[r] = ax::add32(sums[r], bv);
    }
    if constexpr (R == 2) {
      if (rows == 2) {
        ep.store_pair(out + c, out + n + c, sums[0], sums[1], row0, c, nc, flat0 + c, flat0 + n + c);
        continue;
      }
    }
    for (int r = 0; r < rows; ++r) {
      const std::int64_t offset = std::int64_t(r) * n + c;
      ep.store(out + offset, sums[r], row0 + r, c, nc, flat0 + offset);
    }
  }
}

}  // namespace tessera::kernels::x86
