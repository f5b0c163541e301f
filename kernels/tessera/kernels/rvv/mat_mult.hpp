// The rvv matrix micro-kernel: rows of 8-bit activations times 8-bit weights, int32 sums with
// the bias. Every convolution, Gemm and MatMul of the family ends up here.
//
// Channels in lanes, activations broadcast (the outer-product form): for each reduction index t
// the kernel loads one vector of weights (consecutive output channels, widened to int16) and
// multiplies it by each row's activation, a scalar, into that row's int32 accumulators with one
// vwmacc.vx. The rows' activations for one t are adjacent (the pack step interleaves them,
// [t][row]), so they come by scalar loads at fixed offsets from one pointer. Per t and register
// group of channels: 1 weight load (strided vlse8 over [n][k] weights, unit-stride vle8 over a
// MatMul's [k][n] B), 1 widening, R scalar loads, R vwmacc and 3 instructions of loop: for 6
// rows at LMUL 2, 17 instructions for 96 multiply-adds at VLEN 128 (192 at 256); for 3 rows at
// LMUL 4, 11 for 96 (192). `mac_block` picks LMUL 4 when the channels fill more than one LMUL-2
// group, else LMUL 2 (fewer idle lanes on narrow layers).
#pragma once

#include <cstddef>
#include <cstdint>

#include <tessera/kernels/arch/rvv.hpp>
#include <tessera/kernels/rvv/traits.hpp>

namespace tessera::kernels::rvv {

/// The weights of a product: w[c * channel_step + t * reduction_step] for channel c, index t.
template <class TW>
struct weight_view {
  const TW* w;
  std::ptrdiff_t channel_step;    ///< k for [n][k] weights, 1 for a MatMul's [k][n] B
  std::ptrdiff_t reduction_step;  ///< 1 for [n][k], n for [k][n]
};

/// acc[r * acc_stride + c] = bias[c] (0 without) + sum_{t<k} x[t * S + r] * w(c, t), for r < R
/// and c < n. `x` holds the rows interleaved with stride S (R <= S). Contiguous: channel_step == 1.
template <class L, int R, int S, bool Contiguous, class TX, class TW>
[[gnu::noinline]] void mac_rows(const TX* x, int k, weight_view<TW> wv, const std::int32_t* bias, int n,
                                std::int32_t* acc, std::ptrdiff_t acc_stride) {
  static_assert(R >= 1 && R <= 6 && R <= S, "rvv::mac_rows: 1 to 6 rows");
  using i32 = typename L::i32;
  for (int c0 = 0; c0 < n;) {
    const std::size_t vl = L::setvl(std::size_t(n - c0));
    const i32 init = bias != nullptr ? L::load32(bias + c0, vl) : L::zero(vl);
    i32 a0 = init, a1 = init, a2 = init, a3 = init, a4 = init, a5 = init;
    const TW* w = wv.w + c0 * wv.channel_step;
    const TX* p = x;
    for (int t = 0; t < k; ++t, p += S, w += wv.reduction_step) {
      const auto wt = L::template load_widened<Contiguous>(w, wv.channel_step, vl);
      a0 = arch::rvv::mac(a0, std::int16_t(p[0]), wt, vl);
      if constexpr (R > 1) a1 = arch::rvv::mac(a1, std::int16_t(p[1]), wt, vl);
      if constexpr (R > 2) a2 = arch::rvv::mac(a2, std::int16_t(p[2]), wt, vl);
      if constexpr (R > 3) a3 = arch::rvv::mac(a3, std::int16_t(p[3]), wt, vl);
      if constexpr (R > 4) a4 = arch::rvv::mac(a4, std::int16_t(p[4]), wt, vl);
      if constexpr (R > 5) a5 = arch::rvv::mac(a5, std::int16_t(p[5]), wt, vl);
    }
    std::int32_t* o = acc + c0;
    L::store32(o, a0, vl);
    if constexpr (R > 1) L::store32(o + acc_stride, a1, vl);
    if constexpr (R > 2) L::store32(o + 2 * acc_stride, a2, vl);
    if constexpr (R > 3) L::store32(o + 3 * acc_stride, a3, vl);
    if constexpr (R > 4) L::store32(o + 4 * acc_stride, a4, vl);
    if constexpr (R > 5) L::store32(o + 5 * acc_stride, a5, vl);
    c0 += int(vl);
  }
}

/// Whether a product with `n` output channels runs at LMUL 4 (3 rows per pass) rather than 2.
inline bool wide_lanes(int n) { return std::size_t(n) > arch::rvv::lmul2::vlmax(); }

/// The sums of `rows` rows (1 to block_rows) against n channels into acc ([block_rows][n]).
/// x holds the rows interleaved ([t][block_rows]), except that a lone row of a Gemm is
/// contiguous (`Interleaved` false: read in place). A pass may compute the rows past `rows`
/// from stale data into acc's spare rows (cheaper than a kernel per count).
template <bool Contiguous, bool Interleaved, class TX, class TW>
void mac_block(const TX* x, int rows, int k, weight_view<TW> wv, const std::int32_t* bias, int n, std::int32_t* acc) {
  using arch::rvv::lmul2;
  using arch::rvv::lmul4;
  constexpr int S = block_rows;
  constexpr int single = Interleaved ? S : 1;
  if (rows == 1) {
    if (wide_lanes(n)) mac_rows<lmul4, 1, single, Contiguous>(x, k, wv, bias, n, acc, n);
    else mac_rows<lmul2, 1, single, Contiguous>(x, k, wv, bias, n, acc, n);
    return;
  }
  if (wide_lanes(n)) {
    mac_rows<lmul4, 3, S, Contiguous>(x, k, wv, bias, n, acc, n);
    if (rows > 3) mac_rows<lmul4, 3, S, Contiguous>(x + 3, k, wv, bias, n, acc + 3 * n, n);
  } else {
    mac_rows<lmul2, 6, S, Contiguous>(x, k, wv, bias, n, acc, n);
  }
}

}  // namespace tessera::kernels::rvv
