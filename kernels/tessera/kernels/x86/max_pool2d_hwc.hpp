// x86 max pooling, channels-last: SIMD over channels (PMAXSB / PMAXUB, 16 or 32 at a time).
// Only the window cells inside the input are visited (padding never wins), so each output is
// the maximum of its valid cells, or 0 for a window made only of padding, as the reference.
//
// Scratch: none (max_pool2d_scratch_bytes is 0).
#pragma once

#include <cstdint>

#include <tessera/kernels/arch/x86.hpp>
#include <tessera/kernels/x86/traits.hpp>

namespace tessera::kernels::x86 {

namespace ax = arch::x86;

/// The window rows (or columns) [lo, hi) of output coordinate `o` that lie inside [0, size).
struct window_range {
  int lo, hi;
};
constexpr window_range clip_window(int o, int stride, int pad, int kernel, int size) {
  const int start = o * stride - pad;
  const int lo = start < 0 ? 0 : start;
  const int hi = start + kernel > size ? size : start + kernel;
  return {lo, hi < lo ? lo : hi};
}

/// Max pooling (semantics: reference::max_pool2d).
/// - in:  NHWC [batch][in_h][in_w][channels], 8-bit;  out: NHWC [batch][out_h][out_w][channels]
template <class T>
void max_pool2d_hwc(const reference::pool2d_dims& d, const T* in, T* out) {
  constexpr int lanes = 16;
  const int channels = d.channels;
  for (int n = 0; n < d.batch; ++n) {
    const T* image = in + std::int64_t(n) * d.in_h * d.in_w * channels;
    for (int y = 0; y < d.out_h; ++y) {
      const window_range rows = clip_window(y, d.stride_h, d.pad_top, d.kernel_h, d.in_h);
      for (int x = 0; x < d.out_w; ++x) {
        const window_range cols = clip_window(x, d.stride_w, d.pad_left, d.kernel_w, d.in_w);
        T* o = out + ((std::int64_t(n) * d.out_h + y) * d.out_w + x) * channels;
        if (rows.lo == rows.hi || cols.lo == cols.hi) {
          for (int c = 0; c < channels; ++c) o[c] = T{};
          continue;
        }
        for (int c = 0; c < channels; c += lanes) {
          const int nc = channels - c < lanes ? channels - c : lanes;
          const T* first = image + (std::int64_t(rows.lo) * d.in_w + cols.lo) * channels + c;
          ax::v128 best = nc == lanes ? ax::load128(first) : ax::load128_partial(first, nc);
          for (int iy = rows.lo; iy < rows.hi; ++iy) {
            for (int ix = cols.lo; ix < cols.hi; ++ix) {
              const T* p = image + (std::int64_t(iy) * d.in_w + ix) * channels + c;
              best = ax::max8<T>(best, nc == lanes ? ax::load128(p) : ax::load128_partial(p, nc));
            }
          }
          if (nc == lanes) ax::store128(o + c, best);
          else ax::store128_partial(o + c, best, nc);
        }
      }
    }
  }
}

}  // namespace tessera::kernels::x86
