// x86 depthwise convolution, DORY's CHW variant: each channel's padded input plane is
// reordered into scratch as int16 (the pad value, the input's zero point, in the padding), then
// output rows are computed with SIMD over output columns (8 with SSE4.1, 16 with AVX2) and
// written back channels-last.
//
// Columns are stored split by stride phase (padded column x*stride + p is element x of phase
// p), so every tap of a strided or dilated filter reads one contiguous vector. Taps go in
// pairs as in depthwise_hwc: two interleaved input vectors, one PMADDWD against the pair's two
// weights broadcast. This wins over the HWC kernel when there are too few channels to fill a
// vector (depthwise_prefers_chw).
//
// Scratch: depthwise_chw_scratch_bytes (traits.hpp), one channel's plane.
#pragma once

#include <cstdint>

#include <tessera/kernels/arch/x86.hpp>
#include <tessera/kernels/x86/requant_epilogue.hpp>
#include <tessera/kernels/x86/traits.hpp>

namespace tessera::kernels::x86 {

/// Depthwise convolution (groups == in_c == out_c, kernel_h*kernel_w <= max_depthwise_taps),
/// same tensors as depthwise_hwc; scratch: depthwise_chw_scratch(d).total bytes, any alignment.
template <class TIn, class TW, class TOut>
void depthwise_chw(const reference::conv2d_dims& d, const TIn* input, const TW* weights, const std::int32_t* bias,
                   const requant_params& rq, TOut* output, void* scratch) {
  using ax::vwide;
  constexpr int lanes = ax::wide_i16;  // output columns per step
  constexpr int half = lanes / 2;
  const int channels = d.in_c;
  const int taps = d.kernel_h * d.kernel_w;
  const int pairs = (taps + 1) / 2;
  const int rows = depthwise_chw_rows(d);
  const int row_len = depthwise_chw_row_length(d);
  const int phases = d.stride_w;
  auto* plane = depthwise_chw_scratch(d).part<std::int16_t>(scratch, 0);

  // Offset of each tap's first element (output pixel 0, 0) in the plane; the odd last tap's
  // partner repeats it with weight 0.
  std::int64_t tap_offset[max_depthwise_taps + 1];
  for (int t = 0; t < taps; ++t) {
    const int i = t / d.kernel_w, j = t % d.kernel_w;
    const int col = j * d.dilation_w;
    tap_offset[t] = (std::int64_t(col % phases) * rows + i * d.dilation_h) * row_len + col / phases;
  }
  tap_offset[taps] = tap_offset[taps - 1];

  const epilogue<TOut> ep(rq, 0, channels);
  const auto padding = static_cast<std::int16_t>(d.pad_value);
  for (int n = 0; n < d.batch; ++n) {
    const TIn* image = input + std::int64_t(n) * d.in_h * d.in_w * channels;
    for (int c = 0; c < channels; ++c) {
      for (int ph = 0; ph < phases; ++ph) {
        for (int r = 0; r < rows; ++r) {
          const int iy = r - d.pad_top;
          std::int16_t* dst = plane + (std::int64_t(ph) * rows + r) * row_len;
          if (iy < 0 || iy >= d.in_h) {
            for (int k = 0; k < row_len; ++k) dst[k] = padding;
            continue;
          }
          const TIn* src = image + std::int64_t(iy) * d.in_w * channels + c;
          for (int k = 0; k < row_len; ++k) {
            const int ix = k * phases + ph - d.pad_left;
            dst[k] = ix >= 0 && ix < d.in_w ? static_cast<std::int16_t>(src[std::int64_t(ix) * channels]) : padding;
          }
        }
      }
      // The pairs' weights, {w[t0], w[t1]} in every 32-bit lane.
      vwide wpair[(max_depthwise_taps + 1) / 2];
      const TW* wc = weights + std::int64_t(c) * taps;
      for (int p = 0; p < pairs; ++p) {
        const int t1 = 2 * p + 1;
        const auto lo16 = static_cast<std::uint16_t>(static_cast<std::int16_t>(wc[2 * p]));
        const auto hi16 = static_cast<std::uint16_t>(t1 < taps ? static_cast<std::int16_t>(wc[t1]) : 0);
        wpair[p] = ax::wide_set1_32(static_cast<std::int32_t>(std::uint32_t(hi16) << 16 | lo16));
      }
      const std::int32_t b = bias != nullptr ? bias[c] : 0;
      for (int y = 0; y < d.out_h; ++y) {
        const std::int16_t* row0 = plane + std::int64_t(y) * d.stride_h * row_len;
        for (int x0 = 0; x0 < d.out_w; x0 += lanes) {
          vwide lo = ax::wide_set1_32(b), hi = lo;
          for (int p = 0; p < pairs; ++p) {
            const vwide in0 = ax::wide_load(row0 + tap_offset[2 * p] + x0);
            const vwide in1 = ax::wide_load(row0 + tap_offset[2 * p + 1] + x0);
            lo = ax::wide_add32(lo, ax::wide_madd16(ax::wide_unpacklo16(in0, in1), wpair[p]));
            hi = ax::wide_add32(hi, ax::wide_madd16(ax::wide_unpackhi16(in0, in1), wpair[p]));
          }
          vwide first, second;
          ax::wide_unpermute(lo, hi, first, second);
          const int nx = d.out_w - x0 < lanes ? d.out_w - x0 : lanes;
          TOut values[lanes]{};  // initialised: GCC cannot see that store_channel writes the first nx
          const std::int64_t pixel = (std::int64_t(n) * d.out_h + y) * d.out_w + x0;
          const std::int64_t flat = pixel * channels + c;
          ep.store_channel(values, first, c, nx < half ? nx : half, flat, channels);
          if (nx > half) ep.store_channel(values + half, second, c, nx - half, flat + half * channels, channels);
          TOut* out = output + flat;
          for (int i = 0; i < nx; ++i) out[std::int64_t(i) * channels] = values[i];
        }
      }
    }
  }
}

}  // namespace tessera::kernels::x86
