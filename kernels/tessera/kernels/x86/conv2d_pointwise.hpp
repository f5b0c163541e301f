// x86 pointwise convolution (1x1, any stride and padding): each output pixel is one input
// pixel's in_c channels times the [out_c][in_c] weights, so the input rows feed the
// micro-kernel directly (widened on the fly) and no im2col scratch is needed. An output pixel
// whose input lies in the padding is the bias alone (a dot product of length 0).
//
// Scratch: none (conv2d_scratch_bytes is 0 when conv2d_is_pointwise).
#pragma once

#include <cstdint>

#include <tessera/kernels/x86/gemm_tile.hpp>

namespace tessera::kernels::x86 {

/// Pointwise convolution (kernel 1x1), channels-last.
/// - input:   NHWC [batch][in_h][in_w][in_c], 8-bit
/// - weights: [out_c][1][1][in_c], 8-bit
/// - bias:    [out_c] int32 or nullptr
/// - output:  NHWC [batch][out_h][out_w][out_c], int32 or requantized (as reference::conv2d)
template <class TIn, class TW, class TOut>
void conv2d_pointwise(const reference::conv2d_dims& d, const TIn* input, const TW* weights, const std::int32_t* bias,
                      const requant_params& rq, TOut* output) {
  const epilogue<TOut> ep(rq, 0, d.out_c);
  const int pixels = d.out_h * d.out_w;
  // The input row of output pixel p, or nullptr where it falls in the padding.
  auto pixel_row = [&](const TIn* image, int p) -> const TIn* {
    const int iy = p / d.out_w * d.stride_h - d.pad_top, ix = p % d.out_w * d.stride_w - d.pad_left;
    if (iy < 0 || iy >= d.in_h || ix < 0 || ix >= d.in_w) return nullptr;
    return image + (std::int64_t(iy) * d.in_w + ix) * d.in_c;
  };
  for (int b = 0; b < d.batch; ++b) {
    const TIn* image = input + std::int64_t(b) * d.in_h * d.in_w * d.in_c;
    const std::int64_t out_base = std::int64_t(b) * pixels * d.out_c;
    for (int p = 0; p < pixels; p += tile_pixels) {
      const int np = pixels - p < tile_pixels ? pixels - p : tile_pixels;
      const TIn* first = pixel_row(image, p);
      const TIn* second = np > 1 ? pixel_row(image, p + 1) : first;
      const std::int64_t offset = out_base + std::int64_t(p) * d.out_c;
      if (first != nullptr && second != nullptr) {
        const TIn* a[tile_pixels] = {first, second};
        rows_times_weights<tile_pixels>(a, np, weights, d.in_c, d.out_c, bias, ep, output + offset, 0, offset);
        continue;
      }
      for (int r = 0; r < np; ++r) {  // a pair touching the padding: one pixel at a time
        const TIn* row = r == 0 ? first : second;
        const TIn* a[1] = {row != nullptr ? row : input};
        const std::int64_t o = offset + std::int64_t(r) * d.out_c;
        rows_times_weights<1>(a, 1, weights, row != nullptr ? d.in_c : 0, d.out_c, bias, ep, output + o, 0, o);
      }
    }
  }
}

}  // namespace tessera::kernels::x86
