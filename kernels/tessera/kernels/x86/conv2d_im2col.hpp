// x86 convolution (groups == 1): im2col of two output pixels into int16 rows in scratch, then
// the 2-pixel x 4-channel PMADDWD micro-kernel (gemm_tile.hpp) over all output channels.
// 1x1 convolutions skip im2col (conv2d_pointwise.hpp).
//
// Scratch: conv2d_scratch_bytes (traits.hpp), 2 rows of round_up(kh*kw*in_c, 16) int16.
#pragma once

#include <cstdint>

#include <tessera/kernels/x86/conv2d_pointwise.hpp>
#include <tessera/kernels/x86/gemm_tile.hpp>

namespace tessera::kernels::x86 {

/// dst[0..n) = src[0..n) widened to int16.
template <class T>
inline void widen_copy(const T* src, std::int16_t* dst, int n) {
  int i = 0;
  for (; i + ax::wide_i16 <= n; i += ax::wide_i16) ax::wide_store(dst + i, ax::wide_load_widen<T>(src + i));
  for (; i < n; ++i) dst[i] = static_cast<std::int16_t>(src[i]);
}

inline void zero_fill(std::int16_t* dst, int n) {
  for (int i = 0; i < n; ++i) dst[i] = 0;
}

/// The im2col row of output pixel (y, x): the kh x kw x in_c receptive field in the weights'
/// [kh][kw][in_c] order, cells outside the image as 0, then zeros up to `k_padded`.
template <class TIn>
inline void im2col_row(const reference::conv2d_dims& d, const TIn* image, int y, int x, std::int16_t* row,
                       int k_padded) {
  const int c = d.in_c;
  const int row_len = d.kernel_w * c;
  std::int16_t* dst = row;
  for (int i = 0; i < d.kernel_h; ++i, dst += row_len) {
    const int iy = y * d.stride_h + i * d.dilation_h - d.pad_top;
    if (iy < 0 || iy >= d.in_h) {
      zero_fill(dst, row_len);
      continue;
    }
    const TIn* in_row = image + std::int64_t(iy) * d.in_w * c;
    const int ix0 = x * d.stride_w - d.pad_left;
    if (d.dilation_w == 1) {
      // The taps of one kernel row are contiguous in the input: one widening copy.
      int j_lo = -ix0 > 0 ? -ix0 : 0;
      int j_hi = d.in_w - ix0 < d.kernel_w ? d.in_w - ix0 : d.kernel_w;
      if (j_lo > d.kernel_w) j_lo = d.kernel_w;
      if (j_hi < j_lo) j_hi = j_lo;
      zero_fill(dst, j_lo * c);
      widen_copy(in_row + std::int64_t(ix0 + j_lo) * c, dst + j_lo * c, (j_hi - j_lo) * c);
      zero_fill(dst + j_hi * c, (d.kernel_w - j_hi) * c);
    } else {
      for (int j = 0; j < d.kernel_w; ++j) {
        const int ix = ix0 + j * d.dilation_w;
        if (ix < 0 || ix >= d.in_w) zero_fill(dst + j * c, c);
        else widen_copy(in_row + std::int64_t(ix) * c, dst + j * c, c);
      }
    }
  }
  zero_fill(dst, k_padded - static_cast<int>(dst - row));
}

/// Convolution, groups == 1, channels-last (semantics: reference::conv2d).
/// - input:   NHWC [batch][in_h][in_w][in_c], 8-bit
/// - weights: [out_c][kernel_h][kernel_w][in_c], 8-bit
/// - bias:    [out_c] int32 or nullptr
/// - output:  NHWC [batch][out_h][out_w][out_c]; int32 accumulators when rq is disabled, else
///            requantized (any layout; per tensor and per channel vectorized)
/// - scratch: conv2d_scratch_bytes(d) bytes, any alignment
template <class TIn, class TW, class TOut>
void conv2d_im2col(const reference::conv2d_dims& d, const TIn* input, const TW* weights, const std::int32_t* bias,
                   const requant_params& rq, TOut* output, void* scratch) {
  if (conv2d_is_pointwise(d)) {
    conv2d_pointwise(d, input, weights, bias, rq, output);
    return;
  }
  const int k = d.kernel_h * d.kernel_w * d.in_c;
  const int k_padded = static_cast<int>(round_up(std::size_t(k), k_pad));
  auto* rows = static_cast<std::int16_t*>(scratch);
  const epilogue<TOut> ep(rq, 0, d.out_c);
  const int pixels = d.out_h * d.out_w;
  for (int b = 0; b < d.batch; ++b) {
    const TIn* image = input + std::int64_t(b) * d.in_h * d.in_w * d.in_c;
    const std::int64_t out_base = std::int64_t(b) * pixels * d.out_c;
    for (int p = 0; p < pixels; p += tile_pixels) {
      const int np = pixels - p < tile_pixels ? pixels - p : tile_pixels;
      for (int r = 0; r < np; ++r) {
        im2col_row(d, image, (p + r) / d.out_w, (p + r) % d.out_w, rows + std::int64_t(r) * k_padded, k_padded);
      }
      // A single leftover pixel is computed twice rather than instantiating a 1-row tile.
      const std::int16_t* a[tile_pixels] = {rows, rows + (np > 1 ? k_padded : 0)};
      const std::int64_t offset = out_base + std::int64_t(p) * d.out_c;
      rows_times_weights<tile_pixels>(a, np, weights, k, d.out_c, bias, ep, output + offset, 0, offset);
    }
  }
}

}  // namespace tessera::kernels::x86
