// arm_dsp 2D max pooling, NHWC, 8-bit: four channels per word, SSUB8/USUB8 + SEL as a
// byte-wise maximum (3 instructions per window cell and 4 channels; 4 per output of a 2x2 pool
// measured). Padded cells are skipped (the window is clipped to the input), exactly as the
// reference ignores them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <tessera/kernels/arch/arm_dsp.hpp>
#include <tessera/kernels/reference/pool.hpp>

namespace tessera::kernels::arm_dsp {

namespace detail {

/// The input rows (or columns) a window starting at `start` with `kernel` cells covers, clipped.
struct pool_range {
  int begin, end;
};
constexpr pool_range clip_window(int start, int kernel, int extent) {
  const int b = start < 0 ? 0 : start;
  const int e = start + kernel > extent ? extent : start + kernel;
  return {b, e};
}

}  // namespace detail

/// out[n,y,x,c] = max over the window cells inside the input (0 if there are none).
/// - `in`: [batch][in_h][in_w][C], `out`: [batch][out_h][out_w][C], int8 or uint8.
/// - `scratch`: unused (max_pool2d_scratch_bytes == 0).
template <class T>
void max_pool2d(const reference::pool2d_dims& d, const T* in, T* out, void* /*scratch*/) {
  namespace a = arch::arm_dsp;
  const int channels = d.channels;
  const int full = channels / 4 * 4;
  for (int n = 0; n < d.batch; ++n) {
    const T* img = in + std::int64_t{n} * d.in_h * d.in_w * channels;
    for (int y = 0; y < d.out_h; ++y) {
      const auto rows = detail::clip_window(y * d.stride_h - d.pad_top, d.kernel_h, d.in_h);
      for (int x = 0; x < d.out_w; ++x, out += channels) {
        const auto cols = detail::clip_window(x * d.stride_w - d.pad_left, d.kernel_w, d.in_w);
        if (rows.begin >= rows.end || cols.begin >= cols.end) {
          for (int c = 0; c < channels; ++c) out[c] = T{0};
          continue;
        }
        const T* first = img + (std::int64_t{rows.begin} * d.in_w + cols.begin) * channels;
        const std::int64_t row_step = std::int64_t{d.in_w} * channels;
        const int width = cols.end - cols.begin;
        for (int c = 0; c < full; c += 4) {
          std::uint32_t m = a::load32(first + c);
          for (int iy = rows.begin; iy < rows.end; ++iy) {
            const T* p = first + (iy - rows.begin) * row_step + c;
            for (int j = 0; j < width; ++j, p += channels) {
              if constexpr (std::is_signed_v<T>) m = a::max_s8x4(m, a::load32(p));
              else m = a::max_u8x4(m, a::load32(p));
            }
          }
          a::store32(out + c, m);
        }
        for (int c = full; c < channels; ++c) {  // leftover channels (a word could read past the input)
          T m = first[c];
          for (int iy = rows.begin; iy < rows.end; ++iy) {
            const T* p = first + (iy - rows.begin) * row_step + c;
            for (int j = 0; j < width; ++j, p += channels) m = *p > m ? *p : m;
          }
          out[c] = m;
        }
      }
    }
  }
}

}  // namespace tessera::kernels::arm_dsp
