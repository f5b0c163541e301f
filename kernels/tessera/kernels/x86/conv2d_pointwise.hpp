// x86 pointwise convolution (1x1, any stride and padding): each output pixel is one input
// pixel's in_c channels times the [out_c][in_c] weights, so the input rows feed the
// micro-kernel directly (widened on the fly) and no im2col scratch is needed: the generic
// pixel-block loop with a "pack" that only points at the rows. An output pixel whose input
// lies in the padding is the bias alone (a dot product of length 0).
//
// Scratch: none (conv2d_scratch is empty when conv2d_is_pointwise).
#pragma once

#include <cstdint>

#include <tessera/kernels/algorithm/conv2d.hpp>
#include <tessera/kernels/algorithm/im2col.hpp>
#include <tessera/kernels/x86/gemm_tile.hpp>

namespace tessera::kernels::x86 {

template <class TIn, class TW, class TOut>
struct conv2d_pointwise_atom {
  static constexpr int pixels = tile_pixels;
  const reference::conv2d_dims& d;
  const TW* weights;
  const std::int32_t* bias;
  epilogue<TOut> ep;
  const TIn* row[tile_pixels] = {};  // the input pixel of each output pixel, nullptr in the padding
  const TIn* image = nullptr;        // a valid pointer for the empty dot products of padding pixels
  algorithm::pixel_cursor at{};  ///< set at each image's first block

  void pack(const TIn* in, int p0, int count) {
    if (p0 == 0) at = algorithm::pixel_cursor(d);
    image = in;
    for (int r = 0; r < count; ++r, at.next()) {
      const int iy = window::origin(at.y(), d.stride_h, d.pad_top), ix = window::origin(at.x(), d.stride_w, d.pad_left);
      row[r] = iy < 0 || iy >= d.in_h || ix < 0 || ix >= d.in_w ? nullptr : in + (std::int64_t(iy) * d.in_w + ix) * d.in_c;
    }
    if (count == 1) row[1] = row[0];
  }
  void compute(int count, TOut* out, std::ptrdiff_t flat) {
    if (row[0] != nullptr && row[1] != nullptr) {
      const TIn* a[tile_pixels] = {row[0], row[1]};
      rows_times_weights<tile_pixels>(a, count, weights, d.in_c, d.out_c, bias, ep, out, 0, flat);
      return;
    }
    for (int r = 0; r < count; ++r) {  // a pair touching the padding: one pixel at a time
      const TIn* a[1] = {row[r] != nullptr ? row[r] : image};
      const std::int64_t o = std::int64_t(r) * d.out_c;
      rows_times_weights<1>(a, 1, weights, row[r] != nullptr ? d.in_c : 0, d.out_c, bias, ep, out + o, 0, flat + o);
    }
  }
};

/// Pointwise convolution (kernel 1x1), channels-last.
/// - input:   NHWC [batch][in_h][in_w][in_c], 8-bit
/// - weights: [out_c][1][1][in_c], 8-bit
/// - bias:    [out_c] int32 or nullptr
/// - output:  NHWC [batch][out_h][out_w][out_c], int32 or requantized (as reference::conv2d)
template <class TIn, class TW, class TOut>
void conv2d_pointwise(const reference::conv2d_dims& d, const TIn* input, const TW* weights, const std::int32_t* bias,
                      const requant_params& rq, TOut* output) {
  conv2d_pointwise_atom<TIn, TW, TOut> atom{d, weights, bias, epilogue<TOut>(rq, 0, d.out_c)};
  algorithm::conv2d_pixel_blocks(d, input, output, atom);
}

}  // namespace tessera::kernels::x86
