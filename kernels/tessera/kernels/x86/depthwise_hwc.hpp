// x86 depthwise convolution, channels-last: SIMD over channels (8 with SSE4.1, 16 with AVX2).
//
// Taps are taken in pairs: the two taps' input vectors are interleaved (PUNPCKLWD/HWD) and one
// PMADDWD against the pair's interleaved weights adds both products per channel, exact in
// int32. The weights are widened and interleaved once per call into scratch, in exactly the
// lane order the unpacks produce; taps that fall in the padding read a row of the pad value
// (the zero point) from scratch, so every pixel runs the same loop. Example (3x3, AVX2): 5
// pairs x (2 loads, 2 unpacks, 2 PMADDWD, 2 adds) per 16 channels of one output pixel, the 10th
// tap with weight 0.
//
// Scratch: depthwise_hwc_scratch_bytes (traits.hpp).
#pragma once

#include <cstdint>

#include <tessera/kernels/arch/x86.hpp>
#include <tessera/kernels/x86/requant_epilogue.hpp>
#include <tessera/kernels/x86/traits.hpp>

namespace tessera::kernels::x86 {

/// Depthwise convolution (groups == in_c == out_c, kernel_h*kernel_w <= max_depthwise_taps).
/// - input:   NHWC [batch][in_h][in_w][C], 8-bit
/// - weights: [C][kernel_h][kernel_w][1], 8-bit
/// - bias:    [C] int32 or nullptr
/// - output:  NHWC [batch][out_h][out_w][C], int32 or requantized (as reference::conv2d)
/// - scratch: depthwise_hwc_scratch(d).total bytes, any alignment
template <class TIn, class TW, class TOut>
void depthwise_hwc(const reference::conv2d_dims& d, const TIn* input, const TW* weights, const std::int32_t* bias,
                   const requant_params& rq, TOut* output, void* scratch) {
  using ax::vwide;
  constexpr int lanes = ax::wide_i16;  // channels per block
  constexpr int half = lanes / 2;      // int32 lanes per accumulator
  const int channels = d.in_c;
  const int taps = d.kernel_h * d.kernel_w;
  const int pairs = (taps + 1) / 2;
  const int blocks = (channels + lanes - 1) / lanes;
  const std::size_t padded_channels = round_up(std::size_t(channels), channel_pad);

  // Scratch: [padding row: padded_channels bytes][weights: pairs x blocks x {lo, hi} vectors].
  // Taps in the padding read the padding row: the input's zero point in every channel.
  const auto layout = depthwise_hwc_scratch(d);
  auto* padding_row = layout.part<TIn>(scratch, 0);
  for (std::size_t c = 0; c < padded_channels; ++c) padding_row[c] = static_cast<TIn>(d.pad_value);
  auto* wv = layout.part<unsigned char>(scratch, 1);
  auto weight_vec = [&](int p, int b, int part) { return wv + ((std::size_t(p) * blocks + b) * 2 + part) * ax::wide_bytes; };
  for (int p = 0; p < pairs; ++p) {
    for (int b = 0; b < blocks; ++b) {
      alignas(32) std::int16_t w0[lanes], w1[lanes];
      for (int l = 0; l < lanes; ++l) {
        const int c = b * lanes + l;
        const int t0 = 2 * p, t1 = 2 * p + 1;
        w0[l] = c < channels ? static_cast<std::int16_t>(weights[std::int64_t(c) * taps + t0]) : 0;
        w1[l] = c < channels && t1 < taps ? static_cast<std::int16_t>(weights[std::int64_t(c) * taps + t1]) : 0;
      }
      const vwide v0 = ax::wide_load(w0), v1 = ax::wide_load(w1);
      ax::wide_store(weight_vec(p, b, 0), ax::wide_unpacklo16(v0, v1));
      ax::wide_store(weight_vec(p, b, 1), ax::wide_unpackhi16(v0, v1));
    }
  }

  // Input offset of each tap from the window's first cell, for pixels whose window lies inside.
  std::int64_t tap_offset[max_depthwise_taps];
  for (int t = 0; t < taps; ++t) {
    tap_offset[t] = (std::int64_t(t / d.kernel_w) * d.dilation_h * d.in_w + (t % d.kernel_w) * d.dilation_w) * channels;
  }
  const auto interior_x = window::interior_outputs(d.out_w, d.stride_w, d.pad_left, d.kernel_w, d.dilation_w, d.in_w);
  const auto interior_y = window::interior_outputs(d.out_h, d.stride_h, d.pad_top, d.kernel_h, d.dilation_h, d.in_h);

  const epilogue<TOut> ep(rq, 0, channels);
  const TIn* tap[max_depthwise_taps + 1];
  tap[taps] = padding_row;  // the partner of an odd last tap (its weights are 0)

  // Up to 8 channels with 128-bit vectors: a channel tail. Its weights are one 128-bit half of
  // the block's two weight vectors (AVX2 unpacks work per 128-bit half: arch::x86::wide_unpacklo16).
  auto block128 = [&](TOut* out, std::int64_t flat, int b, int c0, int nc, int half_index) {
    // A tail of a pixel with >= 8 channels is read as the 8 bytes ending at its last channel
    // (the padding row is padded too, so its taps may be read the same way).
    auto load = [&](const TIn* p) {
      if (nc == 8) return ax::load64(p);
      return channels >= 8 ? ax::load64_tail(p, nc) : ax::load128_partial(p, nc);
    };
    ax::v128 lo = ax::zero128(), hi = ax::zero128();
    for (int p = 0; p < pairs; ++p) {
      const ax::v128 in0 = ax::widen16<TIn>(load(tap[2 * p] + c0));
      const ax::v128 in1 = ax::widen16<TIn>(load(tap[2 * p + 1] + c0));
      lo = ax::add32(lo, ax::madd16(_mm_unpacklo_epi16(in0, in1), ax::load128(weight_vec(p, b, 0) + 16 * half_index)));
      hi = ax::add32(hi, ax::madd16(_mm_unpackhi_epi16(in0, in1), ax::load128(weight_vec(p, b, 1) + 16 * half_index)));
    }
    if (bias != nullptr) {
      lo = ax::add32(lo, nc >= 4 ? ax::load128(bias + c0) : ax::load128_partial(bias + c0, 4 * nc));
      if (nc > 4) hi = ax::add32(hi, nc == 8 ? ax::load128(bias + c0 + 4) : ax::load128_partial(bias + c0 + 4, 4 * (nc - 4)));
    }
    ep.store(out + c0, lo, 0, c0, nc < 4 ? nc : 4, flat + c0);
    if (nc > 4) ep.store(out + c0 + 4, hi, 0, c0 + 4, nc - 4, flat + c0 + 4);
  };

  for (int n = 0; n < d.batch; ++n) {
    const TIn* image = input + std::int64_t(n) * d.in_h * d.in_w * channels;
    for (int y = 0; y < d.out_h; ++y) {
      const int iy0 = window::origin(y, d.stride_h, d.pad_top);
      const bool rows_inside = y >= interior_y.begin && y < interior_y.end;
      for (int x = 0; x < d.out_w; ++x) {
        const int ix0 = window::origin(x, d.stride_w, d.pad_left);
        if (rows_inside && x >= interior_x.begin && x < interior_x.end) {
          const TIn* base = image + (std::int64_t(iy0) * d.in_w + ix0) * channels;
          for (int t = 0; t < taps; ++t) tap[t] = base + tap_offset[t];
        } else {
          for (int i = 0; i < d.kernel_h; ++i) {
            const int iy = iy0 + i * d.dilation_h;
            for (int j = 0; j < d.kernel_w; ++j) {
              const int ix = ix0 + j * d.dilation_w;
              const bool inside = iy >= 0 && iy < d.in_h && ix >= 0 && ix < d.in_w;
              tap[i * d.kernel_w + j] = inside ? image + (std::int64_t(iy) * d.in_w + ix) * channels : padding_row;
            }
          }
        }
        const std::int64_t flat = ((std::int64_t(n) * d.out_h + y) * d.out_w + x) * channels;
        TOut* out = output + flat;
        for (int b = 0; b < blocks; ++b) {
          const int c0 = b * lanes;
          const int nc = channels - c0 < lanes ? channels - c0 : lanes;
          if (nc < lanes) {
            // Tails in 128-bit halves (with SSE4.1 a block is one half).
            block128(out, flat, b, c0, nc < 8 ? nc : 8, 0);
            if (nc > 8) block128(out, flat, b, c0 + 8, nc - 8, 1);
            continue;
          }
          vwide lo = ax::wide_zero(), hi = ax::wide_zero();
          for (int p = 0; p < pairs; ++p) {
            const vwide in0 = ax::wide_load_widen<TIn>(tap[2 * p] + c0);
            const vwide in1 = ax::wide_load_widen<TIn>(tap[2 * p + 1] + c0);
            lo = ax::wide_add32(lo, ax::wide_madd16(ax::wide_unpacklo16(in0, in1), ax::wide_load(weight_vec(p, b, 0))));
            hi = ax::wide_add32(hi, ax::wide_madd16(ax::wide_unpackhi16(in0, in1), ax::wide_load(weight_vec(p, b, 1))));
          }
          vwide first, second;
          ax::wide_unpermute(lo, hi, first, second);
          if (bias != nullptr) {
            first = ax::wide_add32(first, ax::wide_load(bias + c0));
            second = ax::wide_add32(second, ax::wide_load(bias + c0 + half));
          }
          ep.store(out + c0, first, 0, c0, half, flat + c0);
          ep.store(out + c0 + half, second, 0, c0 + half, half, flat + c0 + half);
        }
      }
    }
  }
}

}  // namespace tessera::kernels::x86
