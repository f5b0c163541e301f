// arm_mve average pooling, NHWC: int32 sums of 4 channels per vector, then the reference's
// rounding floor((2*sum + count) / (2*count)) without a division per element.
//
// The quotient comes from one VMULH.U32 by m = ceil(2^32 / d), d = 2*count, on a numerator made
// non-negative first (n = 2*sum + count, plus 128*d for int8, subtracted back as 128 after the
// division). floor(n*m / 2^32) = floor(n / d) whenever n*(m*d - 2^32) < 2^32; with
// m*d - 2^32 < d and n <= 767*count that holds for count <= 1600. Bigger windows (a global pool
// over more than 40x40 pixels) divide per element.
#pragma once

#include <cstdint>
#include <type_traits>

#include <tessera/kernels/arch/arm_mve.hpp>
#include <tessera/kernels/arm_mve/max_pool2d.hpp>
#include <tessera/kernels/reference/pool.hpp>

namespace tessera::kernels::arm_mve {

/// reference::average_pool2d's contract, bit-exact: `in` [batch][in_h][in_w][channels] and
/// `out` [batch][out_h][out_w][channels] of int8 or uint8.
template <class T>
void average_pool2d(const reference::pool2d_dims& d, bool count_include_pad, const T* in, T* out) {
  constexpr bool is_signed = std::is_signed_v<T>;
  const int c_full = d.channels & ~3;
  const int c_tail = d.channels - c_full;
  const std::ptrdiff_t pitch = std::ptrdiff_t(d.in_w) * d.channels;
  // Window cells inside the padded extent [-pad, size + pad_end) (count_include_pad).
  auto padded_count = [](int first, int kernel, int pad, int size, int pad_end) {
    const int lo = first > -pad ? first : -pad;
    const int hi = first + kernel < size + pad_end ? first + kernel : size + pad_end;
    return hi > lo ? hi - lo : 0;
  };
  for (int n = 0; n < d.batch; ++n) {
    const T* in_n = in + std::ptrdiff_t(n) * d.in_h * pitch;
    for (int y = 0; y < d.out_h; ++y) {
      const detail::window_range rows = detail::clip_window(y, d.stride_h, d.pad_top, d.kernel_h, d.in_h);
      for (int x = 0; x < d.out_w; ++x, out += d.channels) {
        const detail::window_range cols = detail::clip_window(x, d.stride_w, d.pad_left, d.kernel_w, d.in_w);
        const int taps_h = rows.end - rows.begin;
        const int taps_w = cols.end - cols.begin;
        const int count = count_include_pad
                              ? padded_count(rows.first, d.kernel_h, d.pad_top, d.in_h, d.pad_bottom) *
                                    padded_count(cols.first, d.kernel_w, d.pad_left, d.in_w, d.pad_right)
                              : taps_h * taps_w;
        if (count == 0) {
          arch::mve::fill_bytes(out, 0, d.channels);
          continue;
        }
        const T* first =
            in_n + (rows.first + rows.begin) * pitch + std::ptrdiff_t(cols.first + cols.begin) * d.channels;
        auto window_sum = [&](int c, auto load) {
          int32x4_t sum = vdupq_n_s32(0);
          const T* row = first + c;
          for (int i = 0; i < taps_h; ++i, row += pitch) {
            const T* cell = row;
            for (int j = 0; j < taps_w; ++j, cell += d.channels) sum = vaddq_s32(sum, load(cell));
          }
          return sum;
        };
        if (count > 1600) {
          for (int c = 0; c < d.channels; ++c) {
            std::int32_t s = 0;
            const T* row = first + c;
            for (int i = 0; i < taps_h; ++i, row += pitch)
              for (int j = 0; j < taps_w; ++j) s += row[std::ptrdiff_t(j) * d.channels];
            out[c] = static_cast<T>(reference::detail::floor_div(2 * std::int64_t{s} + count, 2 * std::int64_t{count}));
          }
          continue;
        }
        const std::uint32_t m = 0xFFFFFFFFu / (2u * static_cast<std::uint32_t>(count)) + 1u;
        const std::int32_t numerator_bias = is_signed ? count + 256 * count : count;
        auto average = [&](int32x4_t sum) {
          const int32x4_t num = vaddq_n_s32(vaddq_s32(sum, sum), numerator_bias);
          const int32x4_t q = vreinterpretq_s32_u32(vmulhq_u32(vreinterpretq_u32_s32(num), vdupq_n_u32(m)));
          return is_signed ? vsubq_n_s32(q, 128) : q;
        };
        for (int c = 0; c < c_full; c += 4) {
          const int32x4_t sum = window_sum(c, [](const T* p) { return arch::mve::widen_s32(p); });
          vstrbq_s32(reinterpret_cast<std::int8_t*>(out + c), average(sum));
        }
        if (c_tail != 0) {
          const mve_pred16_t p = arch::mve::tail32(c_tail);
          const int32x4_t sum = window_sum(c_full, [p](const T* q) { return arch::mve::widen_s32(q, p); });
          arch::mve::narrow_store(out + c_full, average(sum), p);
        }
      }
    }
  }
}

}  // namespace tessera::kernels::arm_mve
