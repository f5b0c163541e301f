// Reference 2D convolution (also 1D, grouped and depthwise), channels-last.
//
// This is the judge of correctness for every optimized convolution: plain loops over the
// definition, no tiling, no tricks. Semantics: ../../../../docs/semantics.md ("Conv").
#pragma once

#include <cstddef>
#include <cstdint>

#include <tessera/core/requant.hpp>

namespace tessera::kernels::reference {

struct conv2d_dims {
  int batch, in_h, in_w, in_c;  // input  [batch][in_h][in_w][in_c]
  int out_h, out_w, out_c;      // output [batch][out_h][out_w][out_c]
  int kernel_h, kernel_w;
  int stride_h, stride_w, dilation_h, dilation_w;
  int pad_top, pad_left;        // bottom/right padding is implied by out_h/out_w
  int groups;                   // in_c % groups == 0 and out_c % groups == 0; depthwise: groups == in_c
  /// The stored value the padding reads: the input's zero point, whose true value is 0 (ONNX
  /// pads a quantized convolution's input with real zeros); 0 for symmetric inputs.
  int pad_value = 0;
};

/// Whether some output's window reaches into the padding (then `pad_value` matters).
constexpr bool reads_padding(const conv2d_dims& d) {
  return d.pad_top > 0 || d.pad_left > 0 ||
         (d.out_h - 1) * d.stride_h + (d.kernel_h - 1) * d.dilation_h + 1 - d.pad_top > d.in_h ||
         (d.out_w - 1) * d.stride_w + (d.kernel_w - 1) * d.dilation_w + 1 - d.pad_left > d.in_w;
}

/// Whether some window reads a padding whose value is not 0: the case the optimized kernels
/// handle apart (a pad row or fill of that value, or the skipped taps' weights times it).
constexpr bool reads_pad_value(const conv2d_dims& d) { return d.pad_value != 0 && reads_padding(d); }

/// Scratch needed by `conv2d`: none (the reference kernel reads its operands in place).
constexpr std::size_t conv2d_scratch_bytes(const conv2d_dims&) { return 0; }

/// Calls `tap(in_index, w_index)` for every term of output (n, y, x, f)'s sum whose input cell
/// lies inside the image, every input channel of the filter's group, and `padded(w_index)` for
/// every term whose cell lies in the padding. The one walk of the window that the reference
/// convolution and the analog array's (analog_conv2d.hpp) share.
template <class Tap, class Padded>
constexpr void for_each_tap(const conv2d_dims& d, int n, int y, int x, int f, Tap&& tap, Padded&& padded) {
  const int cin_per_group = d.in_c / d.groups;
  const int g = f / (d.out_c / d.groups);
  for (int i = 0; i < d.kernel_h; ++i) {
    const int iy = y * d.stride_h + i * d.dilation_h - d.pad_top;
    for (int j = 0; j < d.kernel_w; ++j) {
      const int ix = x * d.stride_w + j * d.dilation_w - d.pad_left;
      const bool inside = iy >= 0 && iy < d.in_h && ix >= 0 && ix < d.in_w;
      for (int c = 0; c < cin_per_group; ++c) {
        const std::int64_t w_index = ((std::int64_t{f} * d.kernel_h + i) * d.kernel_w + j) * cin_per_group + c;
        if (inside)
          tap(((std::int64_t{n} * d.in_h + iy) * d.in_w + ix) * d.in_c + g * cin_per_group + c, w_index);
        else
          padded(w_index);
      }
    }
  }
}

/// out[n,y,x,f] = bias[f] + sum_{c, i, j} in[n, y*sh + i*dh - pad_top, x*sw + j*dw - pad_left,
///                                         g*(in_c/groups) + c] * w[f][i][j][c],
/// with g = f / (out_c/groups); input positions outside the image read as `pad_value` (the
/// input's zero point: the true value 0). 1D convolutions use in_h = out_h = kernel_h = 1.
///
/// - `input`:   NHWC [batch][in_h][in_w][in_c], true values (u8 or s8 in the corpus).
/// - `weights`: [out_c][kernel_h][kernel_w][in_c/groups], s8 in the corpus.
/// - `bias`:    [out_c] int32, or nullptr for no bias.
/// - `output`:  NHWC [batch][out_h][out_w][out_c]; the int32 accumulator when `rq.enabled` is
///              false, else `rq.apply(acc, flat_output_index)` (per-channel requant: length
///              out_c, inner 1).
/// - `scratch`: unused (conv2d_scratch_bytes == 0).
/// The accumulator is int32, as on the device: the caller guarantees that the sum fits.
/// An 8-bit product is at most 2^15 in magnitude (255 * -128), so with 8-bit operands
/// in_c/groups * kernel_h * kernel_w up to about 2^16 terms (less the bias) is always safe.
template <class TIn, class TW, class TOut>
constexpr void conv2d(const conv2d_dims& d, const TIn* input, const TW* weights, const std::int32_t* bias,
                      const requant_params& rq, TOut* output, void* /*scratch*/) {
  for (int n = 0; n < d.batch; ++n) {
    for (int y = 0; y < d.out_h; ++y) {
      for (int x = 0; x < d.out_w; ++x) {
        for (int f = 0; f < d.out_c; ++f) {
          std::int32_t acc = bias != nullptr ? bias[f] : 0;
          for_each_tap(
              d, n, y, x, f,
              [&](std::int64_t in_index, std::int64_t w_index) {
                acc += static_cast<std::int32_t>(input[in_index]) * static_cast<std::int32_t>(weights[w_index]);
              },
              [&](std::int64_t w_index) { acc += d.pad_value * static_cast<std::int32_t>(weights[w_index]); });
          const std::int64_t out_index = ((std::int64_t{n} * d.out_h + y) * d.out_w + x) * d.out_c + f;
          output[out_index] = static_cast<TOut>(rq.apply(acc, out_index));
        }
      }
    }
  }
}

}  // namespace tessera::kernels::reference
