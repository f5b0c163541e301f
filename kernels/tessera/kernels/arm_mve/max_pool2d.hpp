// arm_mve max pooling, NHWC: 16 channels per VMAX, over the window cells inside the input
// (padding never wins: reference::max_pool2d). The window is clipped once per output pixel,
// so the inner loops have no bounds checks.
#pragma once

#include <cstdint>

#include <tessera/kernels/arch/arm_mve.hpp>
#include <tessera/kernels/reference/pool.hpp>

namespace tessera::kernels::arm_mve {

namespace detail {

/// The window rows [i0, i1) (or columns) of an output position `o` inside an input of `size`.
struct window_range {
  int first, begin, end;  ///< first = o * stride - pad; taps [begin, end) are inside
};
inline window_range clip_window(int o, int stride, int pad, int kernel, int size) {
  const int first = o * stride - pad;
  int begin = first < 0 ? -first : 0;
  int end = size - first < kernel ? size - first : kernel;
  if (begin > kernel) begin = kernel;
  if (end < begin) end = begin;
  return {first, begin, end};
}

}  // namespace detail

/// reference::max_pool2d's contract, bit-exact: `in` [batch][in_h][in_w][channels] and `out`
/// [batch][out_h][out_w][channels] of int8 or uint8; windows without an input cell give 0.
template <class T>
void max_pool2d(const reference::pool2d_dims& d, const T* in, T* out) {
  const int c_full = d.channels & ~15;
  const int c_tail = d.channels - c_full;
  const std::ptrdiff_t pitch = std::ptrdiff_t(d.in_w) * d.channels;
  for (int n = 0; n < d.batch; ++n) {
    const T* in_n = in + std::ptrdiff_t(n) * d.in_h * pitch;
    for (int y = 0; y < d.out_h; ++y) {
      const detail::window_range rows = detail::clip_window(y, d.stride_h, d.pad_top, d.kernel_h, d.in_h);
      for (int x = 0; x < d.out_w; ++x, out += d.channels) {
        const detail::window_range cols = detail::clip_window(x, d.stride_w, d.pad_left, d.kernel_w, d.in_w);
        if (rows.begin == rows.end || cols.begin == cols.end) {
          arch::mve::fill_bytes(out, 0, d.channels);
          continue;
        }
        const T* first =
            in_n + (rows.first + rows.begin) * pitch + std::ptrdiff_t(cols.first + cols.begin) * d.channels;
        const int taps_h = rows.end - rows.begin;
        const int taps_w = cols.end - cols.begin;
        // Whole vectors of 16 channels unpredicated, the last partial one predicated.
        auto window_max = [&]<bool Tail>(int c, mve_pred16_t p) {
          auto load = [&](const T* q) {
            if constexpr (Tail) return arch::mve::load16(q, p);
            else return arch::mve::load16(q);
          };
          const T* row = first + c;
          auto best = load(row);
          for (int i = 0; i < taps_h; ++i, row += pitch) {
            const T* cell = row;
            for (int j = 0; j < taps_w; ++j, cell += d.channels) best = arch::mve::max16(best, load(cell));
          }
          return best;
        };
        for (int c = 0; c < c_full; c += 16) arch::mve::store16(out + c, window_max.template operator()<false>(c, 0));
        if (c_tail != 0) {
          const mve_pred16_t p = arch::mve::tail8(c_tail);
          arch::mve::store16(out + c_full, window_max.template operator()<true>(c_full, p), p);
        }
      }
    }
  }
}

}  // namespace tessera::kernels::arm_mve
