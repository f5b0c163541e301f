// Reference 2D max and average pooling, channels-last.
//
// MaxPool follows the corpus (../../../../docs/semantics.md, "MaxPool"). The corpus has no
// average pool: its rounding rule below is Tessera's own (see "AveragePool" in that doc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include <tessera/core/integer_math.hpp>

namespace tessera::kernels::reference {

struct pool2d_dims {
  int batch, in_h, in_w, channels, out_h, out_w, kernel_h, kernel_w, stride_h, stride_w, pad_top, pad_left,
      pad_bottom, pad_right;
};

/// Scratch needed by `max_pool2d`: none.
constexpr std::size_t max_pool2d_scratch_bytes(const pool2d_dims&) { return 0; }
/// Scratch needed by `average_pool2d`: none.
constexpr std::size_t average_pool2d_scratch_bytes(const pool2d_dims&) { return 0; }

/// out[n,y,x,c] = max of in[n, y*sh + i - pad_top, x*sw + j - pad_left, c] over the window
/// cells that lie inside the input. Padded cells are ignored (they never win, whatever their
/// value would be), so the result always is one of the input values and keeps T's range.
/// A window with no valid cell (only possible when a padding is >= the kernel) yields 0.
///
/// - `in`:  NHWC [batch][in_h][in_w][channels], 8-bit in the corpus.
/// - `out`: NHWC [batch][out_h][out_w][channels], same type as `in`.
template <class T>
constexpr void max_pool2d(const pool2d_dims& d, const T* in, T* out) {
  for (int n = 0; n < d.batch; ++n) {
    for (int y = 0; y < d.out_h; ++y) {
      for (int x = 0; x < d.out_w; ++x) {
        for (int c = 0; c < d.channels; ++c) {
          bool found = false;
          T best{};
          for (int i = 0; i < d.kernel_h; ++i) {
            const int iy = y * d.stride_h + i - d.pad_top;
            if (iy < 0 || iy >= d.in_h) continue;
            for (int j = 0; j < d.kernel_w; ++j) {
              const int ix = x * d.stride_w + j - d.pad_left;
              if (ix < 0 || ix >= d.in_w) continue;
              const T v = in[((std::int64_t{n} * d.in_h + iy) * d.in_w + ix) * d.channels + c];
              if (!found || v > best) best = v;
              found = true;
            }
          }
          out[((std::int64_t{n} * d.out_h + y) * d.out_w + x) * d.channels + c] = best;
        }
      }
    }
  }
}

namespace detail {
using tessera::floor_div;  // floor(a / b) for b > 0 (C++ `/` truncates toward zero)
}  // namespace detail

/// out = round_half_up(sum / count), computed exactly in integers as
///       floor((2*sum + count) / (2*count))       (floor division, also for negative sums)
/// then clamped to T's range. Example: sum = -5, count = 2 -> floor(-8 / 4) = -2 (-2.5 -> -2);
/// sum = 5, count = 2 -> floor(12 / 4) = 3 (2.5 -> 3). This is the direction RequantShift
/// rounds in (half up), chosen by Tessera because the corpus has no average pool.
///
/// sum   = int32 sum of the window cells inside the input (padding adds nothing).
/// count = number of those cells, or with `count_include_pad` the number of window cells
///         inside the padded extent [-pad_top, in_h + pad_bottom) x [-pad_left, in_w + pad_right)
///         (ONNX AveragePool; cells beyond that extent, e.g. from ceil_mode, never count).
/// A window with count == 0 yields 0. GlobalAveragePool is kernel = stride = input size, no pads.
///
/// - `in`:  NHWC [batch][in_h][in_w][channels], 8-bit in practice (the int32 sum must not overflow).
/// - `out`: NHWC [batch][out_h][out_w][channels], same type as `in`.
template <class T>
constexpr void average_pool2d(const pool2d_dims& d, bool count_include_pad, const T* in, T* out) {
  for (int n = 0; n < d.batch; ++n) {
    for (int y = 0; y < d.out_h; ++y) {
      for (int x = 0; x < d.out_w; ++x) {
        for (int c = 0; c < d.channels; ++c) {
          std::int32_t sum = 0;
          std::int32_t count = 0;
          for (int i = 0; i < d.kernel_h; ++i) {
            const int iy = y * d.stride_h + i - d.pad_top;
            const bool row_valid = iy >= 0 && iy < d.in_h;
            const bool row_in_pad_extent = iy >= -d.pad_top && iy < d.in_h + d.pad_bottom;
            for (int j = 0; j < d.kernel_w; ++j) {
              const int ix = x * d.stride_w + j - d.pad_left;
              const bool col_valid = ix >= 0 && ix < d.in_w;
              const bool col_in_pad_extent = ix >= -d.pad_left && ix < d.in_w + d.pad_right;
              if (row_valid && col_valid) {
                sum += static_cast<std::int32_t>(in[((std::int64_t{n} * d.in_h + iy) * d.in_w + ix) * d.channels + c]);
                ++count;
              } else if (count_include_pad && row_in_pad_extent && col_in_pad_extent) {
                ++count;
              }
            }
          }
          std::int64_t v = 0;
          if (count > 0) v = detail::floor_div(2 * std::int64_t{sum} + count, 2 * std::int64_t{count});
          const std::int64_t lo = std::numeric_limits<T>::min();
          const std::int64_t hi = std::numeric_limits<T>::max();
          if (v < lo) v = lo;
          if (v > hi) v = hi;
          out[((std::int64_t{n} * d.out_h + y) * d.out_w + x) * d.channels + c] = static_cast<T>(v);
        }
      }
    }
  }
}

}  // namespace tessera::kernels::reference
