// rv32 depthwise convolution, channels-last (groups == in_c == out_c, any kernel, stride,
// dilation, padding), with no scratch: the generic pixel-block loop (algorithm/conv2d.hpp)
// over pairs of output pixels, as the convolution, with a depthwise atom. Per pair and group of
// 4 channels, each tap inside both windows loads the 4 channels of each pixel (one run of 4
// bytes of the input: immediate offsets) and the 4 channels' weights (4 rows of the
// [c][kernel_h][kernel_w] filter), then 8 mul + 8 add: 20 loads and arithmetic plus 6 pointer
// steps per 8 MACs. Taps in the padding are skipped, and a nonzero padding value added as the
// sum of their weights times it, as in conv2d_direct.hpp.
//
// PULP-NN and DORY run depthwise layers on CHW planes reordered in scratch (each core its own);
// the HWC form keeps the family scratch-free, so a cluster shares these tiles too.
#pragma once

#include <cstddef>
#include <cstdint>

#include <tessera/core/requant.hpp>
#include <tessera/kernels/algorithm/conv2d.hpp>
#include <tessera/kernels/reference/conv2d.hpp>
#include <tessera/kernels/rv32/conv2d_direct.hpp>
#include <tessera/kernels/rv32/epilogue.hpp>
#include <tessera/kernels/rv32/traits.hpp>

namespace tessera::kernels::rv32 {

/// The depthwise atom: pairs of output pixels (windows found by `pack`, as conv2d_atom's), then
/// groups of 4 channels. `ReadsPadValue` as conv2d_atom's.
template <bool ReadsPadValue, class TIn, class TW, class TOut>
struct depthwise_atom {
  static constexpr int pixels = 2;
  const reference::conv2d_dims& d;
  const TW* weights;
  const std::int32_t* bias;
  store_plan plan;
  const TIn* image = nullptr;
  clipped_window win[2]{};
  int oy = 0, ox = 0;

  void pack(const TIn* img, int p0, int count) {
    if (p0 == 0) oy = ox = 0;
    image = img;
    for (int p = 0; p < count; ++p) {
      win[p] = clip_window(d, oy, ox);
      if (++ox == d.out_w) ox = 0, ++oy;
    }
  }

  /// Channels [c, c + C) of P pixels whose windows have `w`'s taps; a[p]: pixel p's first tap.
  template <int C, int P>
  [[gnu::always_inline]] void taps(const clipped_window& w, const TIn* const (&a)[P], int c,
                                   std::int32_t (&acc)[C * P]) {
    const int taps_per_filter = d.kernel_h * d.kernel_w;
    const std::ptrdiff_t col_step = std::ptrdiff_t(d.dilation_w) * d.in_c;
    const std::ptrdiff_t row_step = std::ptrdiff_t(d.dilation_h) * d.in_w * d.in_c;
    const int cols = w.j1 - w.j0;
    std::int32_t s[C * P];
#pragma GCC unroll 8
    for (int i = 0; i < C * P; ++i) s[i] = acc[i];
    const TIn* row[P];
#pragma GCC unroll 2
    for (int p = 0; p < P; ++p) row[p] = a[p] + c;
    const TW* wrow = weights + std::ptrdiff_t(c) * taps_per_filter + w.i0 * d.kernel_w + w.j0;
    for (int i = w.i0; i < w.i1; ++i) {
      const TIn* x[P];
#pragma GCC unroll 2
      for (int p = 0; p < P; ++p) x[p] = row[p];
      const TW* wt = wrow;
      for (int j = 0; j < cols; ++j) {
#pragma GCC unroll 4
        for (int q = 0; q < C; ++q) {
          const std::int32_t wv = wt[q * taps_per_filter];
#pragma GCC unroll 2
          for (int p = 0; p < P; ++p) s[q * P + p] += std::int32_t(x[p][q]) * wv;
        }
#pragma GCC unroll 2
        for (int p = 0; p < P; ++p) x[p] += col_step;
        ++wt;
      }
#pragma GCC unroll 2
      for (int p = 0; p < P; ++p) row[p] += row_step;
      wrow += d.kernel_w;
    }
#pragma GCC unroll 8
    for (int i = 0; i < C * P; ++i) acc[i] = s[i];
  }

  /// acc[i*P + p] += pad_value * (channel c + i's weights at window `wnd`'s padding): the taps
  /// `taps` skipped. Constant indices, so that the accumulators stay in registers.
  template <int C, int P>
  [[gnu::always_inline]] void add_padding(const clipped_window& wnd, int c, std::int32_t (&acc)[C * P]) {
    const int taps_per_filter = d.kernel_h * d.kernel_w;
    std::int32_t s[C];
    padding_weight_sums<C>(d, wnd, weights + std::ptrdiff_t(c) * taps_per_filter, taps_per_filter, 1, s);
#pragma GCC unroll 4
    for (int i = 0; i < C; ++i) {
#pragma GCC unroll 2
      for (int p = 0; p < P; ++p) acc[i * P + p] += d.pad_value * s[i];
    }
  }

  template <int C>
  [[gnu::always_inline]] void channels(int c, int count, TOut* out) {
    std::int32_t acc[C * 2];
#pragma GCC unroll 4
    for (int i = 0; i < C; ++i) acc[2 * i] = acc[2 * i + 1] = bias != nullptr ? bias[c + i] : 0;
    if (count == 2 && win[0].same_taps(win[1])) {
      const TIn* a[2] = {image + win[0].offset, image + win[1].offset};
      if (win[0].j1 > win[0].j0) taps<C, 2>(win[0], a, c, acc);
      if constexpr (ReadsPadValue) {
        if (win[0].pads) add_padding<C, 2>(win[0], c, acc);
      }
    } else {
      for (int p = 0; p < count; ++p) {
        std::int32_t one[C];
#pragma GCC unroll 4
        for (int i = 0; i < C; ++i) one[i] = acc[2 * i + p];
        const TIn* a[1] = {image + win[p].offset};
        if (win[p].j1 > win[p].j0) taps<C, 1>(win[p], a, c, one);
        if constexpr (ReadsPadValue) {
          if (win[p].pads) add_padding<C, 1>(win[p], c, one);
        }
#pragma GCC unroll 4
        for (int i = 0; i < C; ++i) acc[2 * i + p] = one[i];
      }
    }
    store_block<C, 2>(acc, plan, 0, c, count, out + c, d.out_c);
  }

  void compute(int count, TOut* out, std::ptrdiff_t) {
    int c = 0;
    for (; c + 4 <= d.out_c; c += 4) channels<4>(c, count, out);
    for (; c < d.out_c; ++c) channels<1>(c, count, out);
  }
};

/// Depthwise convolution, NHWC.
/// - `input`:   [batch][in_h][in_w][C], int8 or uint8.
/// - `weights`: [C][kernel_h][kernel_w], int8 or uint8.
/// - `bias`:    [C] int32 or nullptr.
/// - `rq`:      disabled (int32 output), per tensor or per channel.
/// - `output`:  [batch][out_h][out_w][C].
/// - `scratch`: none.
/// - `ReadsPadValue`: see conv2d_atom.
template <bool ReadsPadValue = true, class TIn, class TW, class TOut>
void depthwise_hwc(const reference::conv2d_dims& d, const TIn* input, const TW* weights, const std::int32_t* bias,
                   const requant_params& rq, TOut* output, void* /*scratch*/) {
  const int taps = d.kernel_h * d.kernel_w;
  high_form table[table_capacity];
  const store_plan plan = make_plan(rq, d.out_c, false, acc_bound<TIn, TW>(taps, bias, d.out_c), table);
  depthwise_atom<ReadsPadValue, TIn, TW, TOut> atom{d, weights, bias, plan};
  algorithm::conv2d_pixel_blocks(d, input, output, atom);
}

}  // namespace tessera::kernels::rv32
