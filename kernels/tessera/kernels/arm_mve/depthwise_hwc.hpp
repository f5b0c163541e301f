// arm_mve depthwise convolution in the channels-last layout: 8 channels per vector, for every
// kernel shape, stride, dilation and padding (also the fallback of the CHW variant).
//
// MVE has no per-lane dot product: VMLADAVA sums across lanes, VMLA only takes a scalar. With
// channels in lanes each tap is VLDRB.S16 (8 channels widened), VLDRH (8 int16 weights, laid
// out [tap][channel] in scratch once per call), VMULLB/VMULLT.S16 (two int32x4 products) and
// two VADDs: 6 instructions for 8 multiply-adds, 1.5 to 3.5 per multiply-add with the loop
// and epilogue overheads. uint8 inputs widen to 16 bits as they are, so no correction is needed
// here. The CHW variant (depthwise_chw.hpp) is 3 to 5 times faster and takes every kernel up to
// 16 taps wide; this one remains its fallback (wider kernels, more than 8191 channels).
//
// The tap loops visit the taps inside the input only; with a nonzero pad value (the input's
// zero point) a border pixel then adds pad_value * w for each tap in the padding, a separate
// pass so that interior pixels and zero-padded layers pay nothing for it.
#pragma once

#include <cstdint>
#include <type_traits>

#include <tessera/core/requant.hpp>
#include <tessera/kernels/arch/arm_mve.hpp>
#include <tessera/kernels/arm_mve/common.hpp>
#include <tessera/kernels/arm_mve/requant.hpp>
#include <tessera/kernels/arm_mve/traits.hpp>
#include <tessera/kernels/reference/conv2d.hpp>

namespace tessera::kernels::arm_mve {

namespace detail {

/// 8 channels widened to int16 lanes (sign- or zero-extended by type).
template <class T>
inline int16x8_t widen_s16(const T* p) {
  if constexpr (std::is_signed_v<T>) return vldrbq_s16(reinterpret_cast<const std::int8_t*>(p));
  else return vreinterpretq_s16_u16(vldrbq_u16(reinterpret_cast<const std::uint8_t*>(p)));
}
template <class T>
inline int16x8_t widen_s16(const T* p, mve_pred16_t pred) {
  if constexpr (std::is_signed_v<T>) return vldrbq_z_s16(reinterpret_cast<const std::int8_t*>(p), pred);
  else return vreinterpretq_s16_u16(vldrbq_z_u16(reinterpret_cast<const std::uint8_t*>(p), pred));
}

}  // namespace detail

/// Depthwise convolution (groups == in_c == out_c), NHWC, reference::conv2d's contract, bit-exact.
///
/// - `in`: [batch][in_h][in_w][C] int8 or uint8; `w`: [C][kernel_h][kernel_w] int8.
/// - `bias`: [C] int32 or null; `rq`: disabled, per tensor or per channel.
/// - `out`: [batch][out_h][out_w][C]; `scratch`: depthwise_hwc_scratch(d).total bytes.
/// - `ReadsPadValue`: false when no call reads a nonzero pad value (concepts.hpp): the border
///   pass is then not instantiated (about 940 bytes of the M55 DS-CNN's code).
template <bool ReadsPadValue = true, class TIn, class TOut>
void depthwise_hwc(const reference::conv2d_dims& d, const TIn* in, const std::int8_t* w, const std::int32_t* bias,
                   const requant_params& rq, TOut* out, void* scratch) {
  const auto layout = depthwise_hwc_scratch(d);
  auto* table = layout.part<std::int32_t>(scratch, 0);
  auto* wt = layout.part<std::int16_t>(scratch, 1);
  auto* acc = layout.part<std::int32_t>(scratch, 2);
  const int channels = d.out_c;
  const int c8 = static_cast<int>(round_up(at_least_1(channels), 8));
  const int taps = d.kernel_h * d.kernel_w;
  for (int t = 0; t < taps; ++t)
    for (int c = 0; c < c8; ++c) wt[t * c8 + c] = c < channels ? w[c * taps + t] : 0;
  // uint8 inputs are not shifted here: a product is at most 255 * 128 in magnitude.
  const requant_plan plan = plan_requant(rq, channels, bias, no_correction{}, std::int64_t{taps} * 32640, table);
  const int c_full = channels & ~7;
  const std::ptrdiff_t pitch = std::ptrdiff_t(d.in_w) * channels;
  const int16x8_t pad = vdupq_n_s16(static_cast<std::int16_t>(d.pad_value));
  for (int b = 0; b < d.batch; ++b) {
    const TIn* in_b = in + std::ptrdiff_t(b) * d.in_h * pitch;
    for (int y = 0; y < d.out_h; ++y) {
      const auto ti = window::taps_inside(window::origin(y, d.stride_h, d.pad_top), d.kernel_h, d.dilation_h, d.in_h);
      for (int x = 0; x < d.out_w; ++x, out += channels) {
        const auto tj = window::taps_inside(window::origin(x, d.stride_w, d.pad_left), d.kernel_w, d.dilation_w, d.in_w);
        // Sums of 8 channels: even channels in one vector, odd in the other (VMULLB/VMULLT).
        auto group = [&]<bool Tail, bool Padded>(int c, mve_pred16_t p) {
          int32x4_t even = vdupq_n_s32(0), odd = vdupq_n_s32(0);
          for (int i = ti.begin; i < ti.end; ++i) {
            const int iy = y * d.stride_h + i * d.dilation_h - d.pad_top;
            const TIn* cell = in_b + iy * pitch +
                              std::ptrdiff_t(x * d.stride_w + tj.begin * d.dilation_w - d.pad_left) * channels + c;
            const std::int16_t* wp = wt + (i * d.kernel_w + tj.begin) * c8 + c;
            for (int j = tj.begin; j < tj.end; ++j, cell += d.dilation_w * channels, wp += c8) {
              int16x8_t xv;
              if constexpr (Tail) xv = detail::widen_s16(cell, p);
              else xv = detail::widen_s16(cell);
              const int16x8_t wv = vldrhq_s16(wp);
              even = vaddq_s32(even, vmullbq_int_s16(xv, wv));
              odd = vaddq_s32(odd, vmulltq_int_s16(xv, wv));
            }
          }
          if constexpr (Padded) {
            for (int i = 0; i < d.kernel_h; ++i) {
              const bool row_inside = i >= ti.begin && i < ti.end;
              for (int j = 0; j < d.kernel_w; ++j) {
                if (row_inside && j >= tj.begin && j < tj.end) continue;
                const int16x8_t wv = vldrhq_s16(wt + (i * d.kernel_w + j) * c8 + c);
                even = vaddq_s32(even, vmullbq_int_s16(pad, wv));
                odd = vaddq_s32(odd, vmulltq_int_s16(pad, wv));
              }
            }
          }
          int32x4x2_t pair;
          pair.val[0] = even;
          pair.val[1] = odd;
          vst2q_s32(acc + c, pair);
        };
        auto groups = [&]<bool Padded>() {
          for (int c = 0; c < c_full; c += 8) group.template operator()<false, Padded>(c, 0);
          if (c_full < channels)
            group.template operator()<true, Padded>(c_full, vctp16q(static_cast<std::uint32_t>(channels - c_full)));
        };
        if constexpr (ReadsPadValue) {
          if (d.pad_value != 0 && (ti.count() < d.kernel_h || tj.count() < d.kernel_w)) groups.template operator()<true>();
          else groups.template operator()<false>();
        } else {
          groups.template operator()<false>();
        }
        requant_row(plan, acc, acc_layout::contiguous, channels, out);
      }
    }
  }
}

}  // namespace tessera::kernels::arm_mve
