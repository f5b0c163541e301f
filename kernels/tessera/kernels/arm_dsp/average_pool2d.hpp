// arm_dsp 2D average pooling, NHWC, 8-bit, with the reference's rounding: half up,
// floor((2*sum + count) / (2*count)), computed with one UDIV after an offset that makes the
// numerator positive (sum >= -128*count, so 2*sum + count + 256*count > 0).
//
// Sums run four channels per word in halfword lanes (SXTAB16/UXTAB16, 2 instructions per cell
// and 4 channels) and move to int32 before a lane could overflow: at most 255 cells at a time
// (255 * 255 < 2^16 unsigned, 255 * 128 < 2^15 signed); windows of up to 255 cells, the usual
// ones, never check. Measured (Cortex-M4, guest instructions): 24 per output of a 2x2 pool,
// 2.2 per input element of a global pool.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <tessera/kernels/arch/arm_dsp.hpp>
#include <tessera/kernels/arm_dsp/max_pool2d.hpp>
#include <tessera/kernels/reference/pool.hpp>

namespace tessera::kernels::arm_dsp {

namespace detail {

/// round_half_up(sum / count) of the reference, clamped to T (count > 0).
template <class T>
[[gnu::always_inline]] inline T average_of(std::int32_t sum, std::uint32_t count) {
  const std::uint32_t den = 2 * count;
  const std::uint32_t num = static_cast<std::uint32_t>(2 * sum) + count + 128 * den;
  const std::int32_t v = static_cast<std::int32_t>(num / den) - 128;
  // An average of values of T is within T's range; the saturation (one instruction) only
  // mirrors the reference's clamp.
  if constexpr (std::is_signed_v<T>) return static_cast<T>(arch::arm_dsp::ssat<8>(v));
  else return static_cast<T>(arch::arm_dsp::usat<8>(v));
}

/// Halfword lane of a SXTAB16/UXTAB16 accumulator as int32.
template <class T>
[[gnu::always_inline]] inline std::int32_t lane(std::uint32_t v, int hi) {
  const std::uint32_t h = hi ? v >> 16 : v & 0xFFFFu;
  if constexpr (std::is_signed_v<T>) return static_cast<std::int16_t>(h);
  else return static_cast<std::int32_t>(h);
}

}  // namespace detail

/// out = round_half_up(sum / count) over the window (see reference::average_pool2d for the
/// count with and without `count_include_pad`); 0 for an empty window.
/// - `in`: [batch][in_h][in_w][C], `out`: [batch][out_h][out_w][C], int8 or uint8.
/// - `scratch`: unused (average_pool2d_scratch_bytes == 0).
template <class T>
void average_pool2d(const reference::pool2d_dims& d, bool count_include_pad, const T* in, T* out, void* /*scratch*/) {
  namespace a = arch::arm_dsp;
  constexpr bool is_signed = std::is_signed_v<T>;
  const int channels = d.channels;
  const int full = channels / 4 * 4;
  for (int n = 0; n < d.batch; ++n) {
    const T* img = in + std::int64_t{n} * d.in_h * d.in_w * channels;
    for (int y = 0; y < d.out_h; ++y) {
      const int y0 = y * d.stride_h - d.pad_top;
      const auto rows = detail::clip_window(y0, d.kernel_h, d.in_h);
      const auto pad_rows = detail::clip_window(y0 + d.pad_top, d.kernel_h, d.in_h + d.pad_top + d.pad_bottom);
      for (int x = 0; x < d.out_w; ++x, out += channels) {
        const int x0 = x * d.stride_w - d.pad_left;
        const auto cols = detail::clip_window(x0, d.kernel_w, d.in_w);
        const auto pad_cols = detail::clip_window(x0 + d.pad_left, d.kernel_w, d.in_w + d.pad_left + d.pad_right);
        const int height = rows.end > rows.begin ? rows.end - rows.begin : 0;
        const int width = cols.end > cols.begin ? cols.end - cols.begin : 0;
        const int count = count_include_pad ? (pad_rows.end - pad_rows.begin) * (pad_cols.end - pad_cols.begin)
                                            : height * width;
        if (count <= 0) {
          for (int c = 0; c < channels; ++c) out[c] = T{0};
          continue;
        }
        const T* first = img + (std::int64_t{rows.begin} * d.in_w + cols.begin) * channels;
        const std::int64_t row_step = std::int64_t{d.in_w} * channels;
        for (int c = 0; c < full; c += 4) {
          std::int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
          std::uint32_t even = 0, odd = 0;
          auto accumulate = [&](const T* p, int run) {
            for (int j = 0; j < run; ++j, p += channels) {
              const std::uint32_t v = a::load32(p);
              if constexpr (is_signed) {
                even = a::sxtab16(even, v);
                odd = a::sxtab16_ror8(odd, v);
              } else {
                even = a::uxtab16(even, v);
                odd = a::uxtab16_ror8(odd, v);
              }
            }
          };
          if (height * width <= 255) {  // the usual window: no lane can overflow
            for (int i = 0; i < height; ++i) accumulate(first + i * row_step + c, width);
          } else {
            int cells = 0;  // in the halfword lanes since the last move to int32
            for (int i = 0; i < height; ++i) {
              for (int j0 = 0; j0 < width; j0 += 255) {
                const int run = width - j0 < 255 ? width - j0 : 255;
                if (cells + run > 255) {
                  s0 += detail::lane<T>(even, 0), s2 += detail::lane<T>(even, 1);
                  s1 += detail::lane<T>(odd, 0), s3 += detail::lane<T>(odd, 1);
                  even = odd = 0;
                  cells = 0;
                }
                cells += run;
                accumulate(first + i * row_step + std::int64_t{j0} * channels + c, run);
              }
            }
          }
          s0 += detail::lane<T>(even, 0), s2 += detail::lane<T>(even, 1);
          s1 += detail::lane<T>(odd, 0), s3 += detail::lane<T>(odd, 1);
          const auto cnt = static_cast<std::uint32_t>(count);
          out[c] = detail::average_of<T>(s0, cnt);
          out[c + 1] = detail::average_of<T>(s1, cnt);
          out[c + 2] = detail::average_of<T>(s2, cnt);
          out[c + 3] = detail::average_of<T>(s3, cnt);
        }
        for (int c = full; c < channels; ++c) {
          std::int32_t s = 0;
          for (int i = 0; i < height; ++i) {
            const T* p = first + i * row_step + c;
            for (int j = 0; j < width; ++j, p += channels) s += *p;
          }
          out[c] = detail::average_of<T>(s, static_cast<std::uint32_t>(count));
        }
      }
    }
  }
}

}  // namespace tessera::kernels::arm_dsp
