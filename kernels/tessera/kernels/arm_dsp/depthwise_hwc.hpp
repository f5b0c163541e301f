// arm_dsp depthwise convolution, channels-last: SIMD over 4 channels, two filter taps per SMLAD.
//
// For one output pixel and 4 channels c..c+3, taps t and t+1 are words X = in_t[c..c+3] and
// Y = in_t+1[c..c+3]; PKHBT/PKHTB regroup them as (x0 x1 y0 y1) and (x2 x3 y2 y3), and the
// SXTB16 pair of each gives [x_k, y_k] per channel k, which one SMLAD multiplies by the
// channel's weight pair [w_k(t), w_k(t+1)] (prepared once per call in scratch). A tap pair
// costs 15 instructions for 8 MACs. Taps in the padding read a row of the pad value (the input's
// zero point) instead of branching, through a per-pixel table of tap pointers, so borders run
// the same loop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <tessera/core/requant.hpp>
#include <tessera/kernels/arch/arm_dsp.hpp>
#include <tessera/kernels/arm_dsp/epilogue.hpp>
#include <tessera/kernels/arm_dsp/traits.hpp>
#include <tessera/kernels/reference/conv2d.hpp>

namespace tessera::kernels::arm_dsp {

namespace detail {

/// Arguments of the asm channel-group loop (offsets are part of its code).
struct hwc_args {
  const std::uint8_t* const* taps;  // 0: 2*pairs input pointers of the pixel (pad row in the padding)
  int pairs;                        // 4: tap pairs (>= 1)
  const std::uint32_t* wpairs;      // 8: [group][pair][4] weight pair words of the chunk's first group
  std::int32_t* acc;                // 12: 4 accumulators per group
  std::int32_t* acc_end;            // 16: acc + channels of the chunk's whole groups
  int first;                        // 20: the chunk's first channel (byte offset into each tap's pixel)
};
static_assert(offsetof(hwc_args, pairs) == 4 && offsetof(hwc_args, wpairs) == 8 && offsetof(hwc_args, acc) == 12 &&
              offsetof(hwc_args, acc_end) == 16 && offsetof(hwc_args, first) == 20);

// One tap pair of 4 channels: r8/r9 tap pointers -> words X, Y at channel offset r5; r10 =
// (x0 x1 y0 y1), r11 = (x2 x3 y2 y3); expanded in place to [x0,y0] r8, [x1,y1] r10, [x2,y2] r9,
// [x3,y3] r11; weight pairs in r12/lr. MAC0/MAC1: smuad for the first pair, smlad after.
#define TESSERA_DSP_HWC_PAIR(EXT, MUL, ACC0, ACC1, ACC2, ACC3) \
  "ldrd r8, r9, [r4], #8\n\t"                                  \
  "ldr r8, [r8, r5]\n\t"                                       \
  "ldr r9, [r9, r5]\n\t"                                       \
  "pkhbt r10, r8, r9, lsl #16\n\t"                             \
  "pkhtb r11, r9, r8, asr #16\n\t"                             \
  EXT " r8, r10\n\t"                                           \
  EXT " r10, r10, ror #8\n\t"                                  \
  EXT " r9, r11\n\t"                                           \
  EXT " r11, r11, ror #8\n\t"                                  \
  "ldrd r12, lr, [r6], #8\n\t"                                 \
  MUL " r0, r8, r12" ACC0 "\n\t"                               \
  MUL " r1, r10, lr" ACC1 "\n\t"                               \
  "ldrd r12, lr, [r6], #8\n\t"                                 \
  MUL " r2, r9, r12" ACC2 "\n\t"                               \
  MUL " r3, r11, lr" ACC3 "\n\t"

// Channel groups of one chunk of an output pixel: accumulators r0-r3 (STM), tap table r4,
// channel offset r5 (from the chunk's first channel), weights r6, pair counter r7; the tap table base, pair count, accumulator pointer and end
// live on the stack.
#define TESSERA_DSP_HWC(EXT)                                         \
  "push {r4-r11, lr}\n\t"                                            \
  "ldm r0, {r4, r5, r6, r7, r8, r9}\n\t"                             \
  "push {r4, r5, r7, r8}\n\t"                                        \
  "mov r5, r9\n\t"                                                   \
  "0:\n\t"                                                           \
  "ldrd r4, r7, [sp]\n\t"                                            \
  TESSERA_DSP_HWC_PAIR(EXT, "smuad", "", "", "", "")                 \
  "subs r7, r7, #1\n\t"                                              \
  "beq 2f\n\t"                                                       \
  "1:\n\t"                                                           \
  TESSERA_DSP_HWC_PAIR(EXT, "smlad", ", r0", ", r1", ", r2", ", r3") \
  "subs r7, r7, #1\n\t"                                              \
  "bne 1b\n\t"                                                       \
  "2:\n\t"                                                           \
  "ldrd r4, r7, [sp, #8]\n\t"                                        \
  "stm r4!, {r0-r3}\n\t"                                             \
  "str r4, [sp, #8]\n\t"                                             \
  "adds r5, r5, #4\n\t"                                              \
  "cmp r4, r7\n\t"                                                   \
  "bne 0b\n\t"                                                       \
  "add sp, sp, #16\n\t"                                              \
  "pop {r4-r11, pc}\n\t"

// One naked function per input type: a naked function's body must be a single asm statement
// (clang rejects even an `if constexpr` around it; GCC documents the same rule).
[[gnu::naked, gnu::noinline]] inline void hwc_groups_s8(const hwc_args*) { asm volatile(TESSERA_DSP_HWC("sxtb16")); }
[[gnu::naked, gnu::noinline]] inline void hwc_groups_u8(const hwc_args*) { asm volatile(TESSERA_DSP_HWC("uxtb16")); }
template <bool Signed>
inline constexpr void (*hwc_groups)(const hwc_args*) = Signed ? &hwc_groups_s8 : &hwc_groups_u8;

#undef TESSERA_DSP_HWC_PAIR
#undef TESSERA_DSP_HWC

}  // namespace detail

/// The weight pairs [w_k(t), w_k(t+1)] of `channels` filters of `taps` taps (zero past the last
/// tap and the last channel), 4 channels per group: [group][pair][4] words, the scratch's first
/// part. Also a constant expression (flash_constants.hpp bakes them at compile time).
constexpr void pair_taps(const std::int8_t* weights, int channels, int taps, std::uint32_t* wpairs) {
  const int pairs = (taps + 1) / 2;
  const int groups = (channels + channel_lanes - 1) / channel_lanes;
  for (int g = 0; g < groups; ++g) {
    for (int q = 0; q < pairs; ++q) {
      for (int k = 0; k < channel_lanes; ++k) {
        const int c = g * channel_lanes + k;
        std::uint32_t v = 0;
        if (c < channels) {
          const std::int8_t* w = weights + std::int64_t{c} * taps;
          v = static_cast<std::uint16_t>(w[2 * q]);
          if (2 * q + 1 < taps) v |= std::uint32_t{static_cast<std::uint16_t>(w[2 * q + 1])} << 16;
        }
        wpairs[(g * pairs + q) * channel_lanes + k] = v;
      }
    }
  }
}

/// Depthwise convolution (groups == in_c == out_c), NHWC, vectorized over channels.
/// - `input`:   [batch][in_h][in_w][C], int8 or uint8.
/// - `weights`: [C][kernel_h][kernel_w] int8.
/// - `bias`:    [C] int32 or nullptr.
/// - `rq`:      disabled (int32 output), per tensor or per channel.
/// - `output`:  [batch][out_h][out_w][C].
/// - `scratch`: depthwise_hwc_scratch(d).total bytes, any alignment.
/// - `prepared`: `scratch` holds the weight pairs and requantization table of an earlier call
///   with the same weights, bias, requantization and channels (every part of the layout
///   depends on those alone, not on the map), so they are kept; the pad row is written anyway.
/// - `flash`: the weight pairs and table computed at compile time (flash_constants.hpp); then
///   `scratch` is depthwise_hwc_scratch(d, true).total bytes, and `weights` is read only for
///   channels past the last group of 4 (it may be nullptr when there are none).
/// Bit-exact with reference::conv2d.
template <class TIn, class TOut>
void depthwise_hwc(const reference::conv2d_dims& d, const TIn* input, const std::int8_t* weights,
                   const std::int32_t* bias, const requant_params& rq, TOut* output, void* scratch,
                   bool prepared = false, const flash_constants* flash = nullptr) {
  namespace a = arch::arm_dsp;
  const int channels = d.in_c;
  const int c4 = static_cast<int>(round_up(std::size_t(channels), channel_lanes));
  const int full = channels / channel_lanes * channel_lanes;  // channels of whole groups
  const int taps = d.kernel_h * d.kernel_w;
  const int pairs = (taps + 1) / 2;
  const auto layout = depthwise_hwc_scratch(d, flash != nullptr);
  auto* pad_row = layout.part<std::uint8_t>(scratch, 1);           // c4 bytes
  auto* tap_ptr = layout.part<const std::uint8_t*>(scratch, 2);    // 2*pairs
  auto* acc = layout.part<std::int32_t>(scratch, 3);               // one chunk
  const std::uint32_t* wpairs = nullptr;                           // [group][pair][4]
  epilogue_plan plan{};
  if (flash != nullptr) {
    wpairs = flash->weights;
    plan = flash->plan(bias, rq);
  } else {
    auto* own = layout.part<std::uint32_t>(scratch, 0);
    if (!prepared) pair_taps(weights, channels, taps, own);
    wpairs = own;
    plan = make_epilogue<TOut>(rq, channels, layout.part<rq_entry>(scratch, 4), bias,
                               product_bound<TIn, std::int8_t>(taps), prepared);
  }
  // Rewritten by every call, prepared or not: it costs c4 byte stores.
  for (int i = 0; i < c4; ++i) pad_row[i] = static_cast<std::uint8_t>(d.pad_value);

  const auto* in_bytes = reinterpret_cast<const std::uint8_t*>(input);
  for (int n = 0; n < d.batch; ++n) {
    const std::uint8_t* in = in_bytes + std::int64_t{n} * d.in_h * d.in_w * channels;
    TOut* out = output + std::int64_t{n} * d.out_h * d.out_w * channels;
    for (int y = 0; y < d.out_h; ++y) {
      for (int x = 0; x < d.out_w; ++x) {
        // Tap pointers of this pixel: the pad row for taps in the padding, and for the pad tap
        // that completes an odd last pair (its weight is 0: any row would do).
        int t = 0;
        for (int i = 0; i < d.kernel_h; ++i) {
          const int iy = y * d.stride_h + i * d.dilation_h - d.pad_top;
          const bool row_valid = iy >= 0 && iy < d.in_h;
          for (int j = 0; j < d.kernel_w; ++j, ++t) {
            const int ix = x * d.stride_w + j * d.dilation_w - d.pad_left;
            const bool valid = row_valid && ix >= 0 && ix < d.in_w;
            tap_ptr[t] = valid ? in + (std::int64_t{iy} * d.in_w + ix) * channels : pad_row;
          }
        }
        if (t < 2 * pairs) tap_ptr[t] = pad_row;
        TOut* pixel = out + (std::int64_t{y} * d.out_w + x) * channels;
        for (int c0 = 0; c0 < channels; c0 += hwc_chunk_channels) {
          const int n = channels - c0 < hwc_chunk_channels ? channels - c0 : hwc_chunk_channels;
          const int whole = full - c0 < n ? full - c0 : n;  // channels of whole groups in the chunk
          if (whole > 0) {
            const detail::hwc_args args{tap_ptr, pairs, wpairs + std::int64_t{c0} * pairs, acc, acc + whole, c0};
            detail::hwc_groups<std::is_signed_v<TIn>>(&args);
          }
          // Leftover channels one at a time (a word load could read past the input's end).
          for (int c = c0 + whole; c < c0 + n; ++c) {
            std::int32_t s = 0;
            const std::int8_t* w = weights + std::int64_t{c} * taps;
            for (int k = 0; k < taps; ++k) {
              const std::int32_t v = reinterpret_cast<const TIn*>(tap_ptr[k])[c];
              s = a::smlabb(static_cast<std::uint32_t>(v), static_cast<std::uint32_t>(w[k]), s);
            }
            acc[c - c0] = s;
          }
          store_channels<1>(acc, plan, c0, n, pixel + c0);
        }
      }
    }
  }
}

}  // namespace tessera::kernels::arm_dsp
