// x86 convolution (groups == 1): the generic pixel-block loop (algorithm/conv2d.hpp) with
// im2col of two output pixels into int16 rows in scratch, then the 2-pixel x 4-channel PMADDWD
// micro-kernel (gemm_tile.hpp) over all output channels. 1x1 convolutions skip im2col
// (conv2d_pointwise.hpp).
//
// Scratch: conv2d_scratch (traits.hpp), 2 rows of round_up(kh*kw*in_c, 16) int16.
#pragma once

#include <cstdint>

#include <tessera/kernels/algorithm/conv2d.hpp>
#include <tessera/kernels/algorithm/im2col.hpp>
#include <tessera/kernels/x86/conv2d_pointwise.hpp>
#include <tessera/kernels/x86/gemm_tile.hpp>

namespace tessera::kernels::x86 {

/// `n` copies of `value` at `dst`; returns the end.
inline std::int16_t* fill_i16(std::int16_t* dst, int n, std::int16_t value) {
  for (int i = 0; i < n; ++i) dst[i] = value;
  return dst + n;
}

/// im2col's `Pack` for x86: values widened to int16 (algorithm/im2col.hpp); taps in the
/// padding read the input's zero point.
struct widen_to_i16 {
  std::int16_t padding = 0;
  std::int16_t* zero(std::int16_t* dst, int n) const { return fill_i16(dst, n, padding); }
  template <class T>
  static std::int16_t* copy(std::int16_t* dst, const T* src, int n) {
    int i = 0;
    for (; i + ax::wide_i16 <= n; i += ax::wide_i16) ax::wide_store(dst + i, ax::wide_load_widen<T>(src + i));
    for (; i < n; ++i) dst[i] = static_cast<std::int16_t>(src[i]);
    return dst + n;
  }
};

/// The convolution's atom: two im2col rows, then rows_times_weights.
template <class TIn, class TW, class TOut>
struct conv2d_im2col_atom {
  static constexpr int pixels = tile_pixels;
  const reference::conv2d_dims& d;
  const TW* weights;
  const std::int32_t* bias;
  epilogue<TOut> ep;
  int k, k_padded;
  std::int16_t* rows;
  algorithm::pixel_cursor at{};  ///< set at each image's first block

  void pack(const TIn* image, int p0, int count) {
    if (p0 == 0) at = algorithm::pixel_cursor(d);
    widen_to_i16 pack{static_cast<std::int16_t>(d.pad_value)};
    for (int r = 0; r < count; ++r, at.next()) {
      std::int16_t* row = rows + std::int64_t(r) * k_padded;
      std::int16_t* end = algorithm::im2col_pixel(d, image, at.y(), at.x(), row, pack);
      fill_i16(end, k_padded - static_cast<int>(end - row), 0);  // the k-step padding: no weights there
    }
  }
  void compute(int count, TOut* out, std::ptrdiff_t flat) {
    // A single leftover pixel is computed twice rather than instantiating a 1-row tile.
    const std::int16_t* a[tile_pixels] = {rows, rows + (count > 1 ? k_padded : 0)};
    rows_times_weights<tile_pixels>(a, count, weights, k, d.out_c, bias, ep, out, 0, flat);
  }
};

/// Convolution, groups == 1, channels-last (semantics: reference::conv2d).
/// - input:   NHWC [batch][in_h][in_w][in_c], 8-bit
/// - weights: [out_c][kernel_h][kernel_w][in_c], 8-bit
/// - bias:    [out_c] int32 or nullptr
/// - output:  NHWC [batch][out_h][out_w][out_c]; int32 accumulators when rq is disabled, else
///            requantized (any layout; per tensor and per channel vectorized)
/// - scratch: conv2d_scratch(d).total bytes, any alignment
template <class TIn, class TW, class TOut>
void conv2d_im2col(const reference::conv2d_dims& d, const TIn* input, const TW* weights, const std::int32_t* bias,
                   const requant_params& rq, TOut* output, void* scratch) {
  if (conv2d_is_pointwise(d)) {
    conv2d_pointwise(d, input, weights, bias, rq, output);
    return;
  }
  const int k = d.kernel_h * d.kernel_w * d.in_c;
  conv2d_im2col_atom<TIn, TW, TOut> atom{d, weights, bias, epilogue<TOut>(rq, 0, d.out_c), k,
                                         conv2d_row_length(d), conv2d_scratch(d).part<std::int16_t>(scratch, 0)};
  algorithm::conv2d_pixel_blocks(d, input, output, atom);
}

}  // namespace tessera::kernels::x86
