// rv32 conv2d (groups == 1, any kernel, stride, dilation, padding; 1x1 included): the generic
// pixel-block loop (algorithm/conv2d.hpp) over pairs of output pixels, each pair multiplied by
// every group of 4 output channels with the 4x2 micro-kernel (micro_kernel.hpp) and stored
// requantized from registers (epilogue.hpp).
//
// No im2col: a pixel's reduction row is, per kernel row inside the input, one contiguous run of
// the input row (kernel_w * in_c bytes without dilation, clipped at the borders), and the
// weights' [kernel_h][kernel_w][in_c] order matches it, so the micro-kernel reads the input in
// place, one run ("segment") at a time. The atom's `pack` only finds the two windows. This is
// what lets the family need no scratch at all: on a cluster every core runs its band of a tile
// with nothing shared but the tile (tiled_executor runs a tile that needs scratch on one core),
// where PULP-NN gives each core its own im2col buffer. Padding taps are skipped rather than
// multiplied by the padding's value. When that value (the input's zero point, d.pad_value) is
// not 0, a border pixel adds it times the sum of the skipped taps' weights (padding_weight_sums:
// 2 to 3 instructions per skipped weight, against the micro-kernel's 3 per MAC and pixel had it
// multiplied the padding): a pair with the same taps folds that into the bias it starts from
// (compute_padded), so the 4x2 loop and interior pixels are unchanged. Two pixels whose windows
// are clipped differently (at a border, or a pair that wraps to the next output row) are
// computed one at a time with the 4x1 kernel, each adding its own padding terms.
//
// Cost: 2.97 instructions per MAC in the 4x2 loop (95 per 32 MACs), plus per pixel pair and
// group of 4 channels the set-up around it, the runs' last n % 4 elements and the 8 stores:
// measured about 350 instructions for a 1x1 layer with 32 input channels (L4: 4.34 per MAC
// against the loop's 2.97), so layers with short reductions pay most. Figures in kernels.hpp.
#pragma once

#include <cstddef>
#include <cstdint>

#include <tessera/core/requant.hpp>
#include <tessera/core/window.hpp>
#include <tessera/kernels/algorithm/conv2d.hpp>
#include <tessera/kernels/reference/conv2d.hpp>
#include <tessera/kernels/rv32/epilogue.hpp>
#include <tessera/kernels/rv32/micro_kernel.hpp>
#include <tessera/kernels/rv32/traits.hpp>

namespace tessera::kernels::rv32 {

/// The part of an output pixel's window inside the input: kernel rows [i0, i1), kernel columns
/// [j0, j1), and the input offset of tap (i0, j0) in its image. `pads`: some tap lies in the
/// padding and the padding's value is not 0, so the skipped taps still add to the sum.
struct clipped_window {
  std::ptrdiff_t offset = 0;
  int i0 = 0, i1 = 0, j0 = 0, j1 = 0;
  bool pads = false;

  bool same_taps(const clipped_window& o) const { return i0 == o.i0 && i1 == o.i1 && j0 == o.j0 && j1 == o.j1; }
};

inline clipped_window clip_window(const reference::conv2d_dims& d, int oy, int ox) {
  const int iy0 = window::origin(oy, d.stride_h, d.pad_top);
  const int ix0 = window::origin(ox, d.stride_w, d.pad_left);
  const auto rows = window::taps_inside(iy0, d.kernel_h, d.dilation_h, d.in_h);
  const auto cols = window::taps_inside(ix0, d.kernel_w, d.dilation_w, d.in_w);
  clipped_window w{0, rows.begin, rows.end, cols.begin, cols.end};
  if (rows.count() > 0 && cols.count() > 0) {
    w.offset = (std::ptrdiff_t(iy0 + rows.begin * d.dilation_h) * d.in_w + (ix0 + cols.begin * d.dilation_w)) * d.in_c;
  }
  w.pads = d.pad_value != 0 && (rows.count() < d.kernel_h || cols.count() < d.kernel_w);
  return w;
}

/// s[q] = the sum of filter q's weights at the taps of window `w` that lie in the padding (what
/// the padding's value multiplies), for C filters `filter_step` apart, each
/// [kernel_h][kernel_w][c] (c values per tap: in_c for a convolution, 1 for depthwise).
/// Out of line: only border pixels with a nonzero padding value call it, and the callers'
/// micro-kernels keep their registers.
template <int C, class TW>
[[gnu::noinline]] void padding_weight_sums(const reference::conv2d_dims& d, const clipped_window& w, const TW* filter,
                                           std::ptrdiff_t filter_step, int c, std::int32_t (&s)[C]) {
#pragma GCC unroll 4
  for (int q = 0; q < C; ++q) s[q] = 0;
  const auto add = [&](const TW* from, int n) {
    for (int t = 0; t < n; ++t) {
#pragma GCC unroll 4
      for (int q = 0; q < C; ++q) s[q] += from[q * filter_step + t];
    }
  };
  const int row = d.kernel_w * c;
  const bool none_inside = w.i1 <= w.i0 || w.j1 <= w.j0;
  for (int i = 0; i < d.kernel_h; ++i, filter += row) {
    if (none_inside || i < w.i0 || i >= w.i1) {
      add(filter, row);
    } else {
      add(filter, w.j0 * c);
      add(filter + w.j1 * c, row - w.j1 * c);
    }
  }
}

/// Runs `dot_window` over the taps of window `w`: all its kernel rows at once without
/// dilation (runs of (j1 - j0) * in_c elements, one input row pitch apart), else one call per
/// kernel row with one run per tap.
template <int C, int P, class TIn, class TW>
[[gnu::always_inline]] inline void window_taps(const reference::conv2d_dims& d, const clipped_window& w,
                                               const TIn* const (&a)[P], const TW* filter, std::ptrdiff_t k,
                                               std::int32_t (&acc)[C * P]) {
  if (w.j1 <= w.j0 || w.i1 <= w.i0) return;
  const int c = d.in_c;
  const std::ptrdiff_t row_pitch = std::ptrdiff_t(d.dilation_h) * d.in_w * c;
  const std::ptrdiff_t w_pitch = std::ptrdiff_t(d.kernel_w) * c;
  const TW* first = filter + (std::ptrdiff_t(w.i0) * d.kernel_w + w.j0) * c;
  if (d.dilation_w == 1) {
    dot_window<C, P>(a, row_pitch, first, k, w_pitch, w.i1 - w.i0, (w.j1 - w.j0) * c, acc);
    return;
  }
  for (int i = 0; i < w.i1 - w.i0; ++i) {
    const TIn* row[P];
#pragma GCC unroll 2
    for (int p = 0; p < P; ++p) row[p] = a[p] + i * row_pitch;
    dot_window<C, P>(row, std::ptrdiff_t(d.dilation_w) * c, first + i * w_pitch, k, c, w.j1 - w.j0, c, acc);
  }
}

/// The convolution's atom (algorithm/conv2d.hpp): pairs of output pixels, found by `pack` (no
/// copy), then every group of 4 channels through the 4x2 micro-kernel and the store.
/// `ReadsPadValue` false (concepts.hpp): no window pads, and the padding's code is not instantiated.
template <bool ReadsPadValue, class TIn, class TW, class TOut>
struct conv2d_atom {
  static constexpr int pixels = 2;
  const reference::conv2d_dims& d;
  const TW* weights;
  const std::int32_t* bias;
  store_plan plan;
  int k;  ///< kernel_h * kernel_w * in_c: a filter's length
  const TIn* image = nullptr;
  clipped_window win[2]{};
  int oy = 0, ox = 0;  ///< the next pixel to pack

  void pack(const TIn* img, int p0, int count) {
    if (p0 == 0) oy = ox = 0;
    image = img;
    for (int p = 0; p < count; ++p) {
      win[p] = clip_window(d, oy, ox);
      if (++ox == d.out_w) ox = 0, ++oy;
    }
  }

  /// acc[i] += pad_value * (filter i's weights at window `wnd`'s padding): the taps
  /// window_taps skipped, for one pixel. Constant indices, so that `acc` stays in registers.
  template <int C>
  [[gnu::always_inline]] void add_padding(const clipped_window& wnd, const TW* filter, std::int32_t (&acc)[C]) {
    std::int32_t s[C];
    padding_weight_sums<C>(d, wnd, filter, k, d.in_c, s);
#pragma GCC unroll 4
    for (int i = 0; i < C; ++i) acc[i] += d.pad_value * s[i];
  }

  /// Channels [c, c + C) of the `count` packed pixels; `b`: the bias of channel c first, or
  /// nullptr.
  template <int C>
  [[gnu::always_inline]] void channels(int c, const std::int32_t* b, int count, TOut* out) {
    std::int32_t acc[C * 2];
#pragma GCC unroll 4
    for (int i = 0; i < C; ++i) acc[2 * i] = acc[2 * i + 1] = b != nullptr ? b[i] : 0;
    const TW* w = weights + std::ptrdiff_t(c) * k;
    if (count == 2 && win[0].same_taps(win[1])) {
      // A padding's terms, the same for both pixels, are in `b` already (compute_padded).
      const TIn* a[2] = {image + win[0].offset, image + win[1].offset};
      window_taps<C, 2>(d, win[0], a, w, k, acc);
    } else {
      for (int p = 0; p < count; ++p) {
        std::int32_t one[C];
#pragma GCC unroll 4
        for (int i = 0; i < C; ++i) one[i] = acc[2 * i + p];  // the bias: pixel p is not computed yet
        const TIn* a[1] = {image + win[p].offset};
        window_taps<C, 1>(d, win[p], a, w, k, one);
        if constexpr (ReadsPadValue) {
          if (win[p].pads) add_padding<C>(win[p], w, one);
        }
#pragma GCC unroll 4
        for (int i = 0; i < C; ++i) acc[2 * i + p] = one[i];
      }
    }
    store_block<C, 2>(acc, plan, 0, c, count, out + c, d.out_c);
  }

  /// Channels [c0, c1); `b`: the bias of channel c0 first, or nullptr.
  [[gnu::noinline]] void channel_range(int c0, int c1, const std::int32_t* b, int count, TOut* out) {
    int c = c0;
    for (; c + 4 <= c1; c += 4) channels<4>(c, b != nullptr ? b + (c - c0) : b, count, out);
    for (; c < c1; ++c) channels<1>(c, b != nullptr ? b + (c - c0) : b, count, out);
  }

  /// start[c - c0 + i] = bias[c + i] + pad_value * (filter c + i's weights at the padding of
  /// window 0), i < C.
  template <int C>
  void fold_padding(int c, int c0, std::int32_t* start) {
    std::int32_t s[C];
    padding_weight_sums<C>(d, win[0], weights + std::ptrdiff_t(c) * k, k, d.in_c, s);
#pragma GCC unroll 4
    for (int i = 0; i < C; ++i) start[c - c0 + i] = (bias != nullptr ? bias[c + i] : 0) + d.pad_value * s[i];
  }

  /// A pair of pixels whose windows have the same taps in a nonzero padding: its terms are the
  /// same for both pixels, so they join the bias (`chunk` channels at a time on the stack) and
  /// the pair takes the 4x2 kernel with no other change.
  [[gnu::noinline]] void compute_padded(int count, TOut* out) {
    constexpr int chunk = 32;
    std::int32_t start[chunk];
    for (int c0 = 0; c0 < d.out_c; c0 += chunk) {
      const int c1 = d.out_c - c0 < chunk ? d.out_c : c0 + chunk;
      int c = c0;
      for (; c + 4 <= c1; c += 4) fold_padding<4>(c, c0, start);
      for (; c < c1; ++c) fold_padding<1>(c, c0, start);
      channel_range(c0, c1, start, count, out);
    }
  }

  void compute(int count, TOut* out, std::ptrdiff_t) {
    if constexpr (ReadsPadValue) {
      if (count == 2 && win[0].pads && win[0].same_taps(win[1])) return compute_padded(count, out);
    }
    channel_range(0, d.out_c, bias, count, out);
  }
};

/// Standard convolution, NHWC.
/// - `input`:   [batch][in_h][in_w][in_c], int8 or uint8.
/// - `weights`: [out_c][kernel_h][kernel_w][in_c], int8 or uint8 (groups == 1).
/// - `bias`:    [out_c] int32 or nullptr.
/// - `rq`:      disabled (TOut = int32 accumulators), per tensor, or per output channel.
/// - `output`:  [batch][out_h][out_w][out_c].
/// - `scratch`: none (conv2d_scratch(d).total == 0).
/// Bit-exact with reference::conv2d whenever the int32 sum does not overflow (the reference's
/// own precondition). `ReadsPadValue`: see conv2d_atom.
template <bool ReadsPadValue = true, class TIn, class TW, class TOut>
void conv2d_direct(const reference::conv2d_dims& d, const TIn* input, const TW* weights, const std::int32_t* bias,
                   const requant_params& rq, TOut* output, void* /*scratch*/) {
  const int k = d.kernel_h * d.kernel_w * d.in_c;
  high_form table[table_capacity];
  const store_plan plan = make_plan(rq, d.out_c, false, acc_bound<TIn, TW>(k, bias, d.out_c), table);
  conv2d_atom<ReadsPadValue, TIn, TW, TOut> atom{d, weights, bias, plan, k};
  algorithm::conv2d_pixel_blocks(d, input, output, atom);
}

}  // namespace tessera::kernels::rv32
