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
// multiplied by zero, and two pixels whose windows are clipped differently (at a border, or a
// pair that wraps to the next output row) are computed one at a time with the 4x1 kernel.
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
/// [j0, j1), and the input offset of tap (i0, j0) in its image.
struct clipped_window {
  std::ptrdiff_t offset = 0;
  int i0 = 0, i1 = 0, j0 = 0, j1 = 0;

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
  return w;
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
template <class TIn, class TW, class TOut>
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

  /// Channels [c, c + C) of the `count` packed pixels.
  template <int C>
  [[gnu::always_inline]] void channels(int c, int count, TOut* out) {
    std::int32_t acc[C * 2];
#pragma GCC unroll 4
    for (int i = 0; i < C; ++i) acc[2 * i] = acc[2 * i + 1] = bias != nullptr ? bias[c + i] : 0;
    const TW* w = weights + std::ptrdiff_t(c) * k;
    if (count == 2 && win[0].same_taps(win[1])) {
      const TIn* a[2] = {image + win[0].offset, image + win[1].offset};
      window_taps<C, 2>(d, win[0], a, w, k, acc);
    } else {
      for (int p = 0; p < count; ++p) {
        std::int32_t one[C];
#pragma GCC unroll 4
        for (int i = 0; i < C; ++i) one[i] = acc[2 * i + p];  // the bias: pixel p is not computed yet
        const TIn* a[1] = {image + win[p].offset};
        window_taps<C, 1>(d, win[p], a, w, k, one);
#pragma GCC unroll 4
        for (int i = 0; i < C; ++i) acc[2 * i + p] = one[i];
      }
    }
    store_block<C, 2>(acc, plan, 0, c, count, out + c, d.out_c);
  }

  [[gnu::noinline]] void compute(int count, TOut* out, std::ptrdiff_t) {
    int c = 0;
    for (; c + 4 <= d.out_c; c += 4) channels<4>(c, count, out);
    for (; c < d.out_c; ++c) channels<1>(c, count, out);
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
/// own precondition).
template <class TIn, class TW, class TOut>
void conv2d_direct(const reference::conv2d_dims& d, const TIn* input, const TW* weights, const std::int32_t* bias,
                   const requant_params& rq, TOut* output, void* /*scratch*/) {
  const int k = d.kernel_h * d.kernel_w * d.in_c;
  high_form table[table_capacity];
  const store_plan plan = make_plan(rq, d.out_c, false, acc_bound<TIn, TW>(k, bias, d.out_c), table);
  conv2d_atom<TIn, TW, TOut> atom{d, weights, bias, plan, k};
  algorithm::conv2d_pixel_blocks(d, input, output, atom);
}

}  // namespace tessera::kernels::rv32
