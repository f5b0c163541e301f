// rvv max and average pooling, NHWC: channels in lanes over the window cells inside the input
// (reference::max_pool2d and average_pool2d, bit-exact). The window is clipped once per output
// pixel (core/window.hpp), so the inner loops have no bounds checks.
#pragma once

#include <riscv_vector.h>

#include <cstdint>
#include <limits>
#include <type_traits>

#include <tessera/core/window.hpp>
#include <tessera/kernels/reference/pool.hpp>

namespace tessera::kernels::rvv {

/// reference::max_pool2d's contract: `in` [batch][in_h][in_w][channels] and `out`
/// [batch][out_h][out_w][channels] of int8 or uint8; windows without an input cell give 0.
template <class T>
void max_pool2d(const reference::pool2d_dims& d, const T* in, T* out) {
  const std::ptrdiff_t pitch = std::ptrdiff_t(d.in_w) * d.channels;
  for (int n = 0; n < d.batch; ++n) {
    const T* in_n = in + std::ptrdiff_t(n) * d.in_h * pitch;
    for (int y = 0; y < d.out_h; ++y) {
      const int iy0 = window::origin(y, d.stride_h, d.pad_top);
      const auto rows = window::taps_inside(iy0, d.kernel_h, 1, d.in_h);
      for (int x = 0; x < d.out_w; ++x, out += d.channels) {
        const int ix0 = window::origin(x, d.stride_w, d.pad_left);
        const auto cols = window::taps_inside(ix0, d.kernel_w, 1, d.in_w);
        const bool empty = rows.count() <= 0 || cols.count() <= 0;
        const T* first = in_n + std::ptrdiff_t(iy0 + rows.begin) * pitch + std::ptrdiff_t(ix0 + cols.begin) * d.channels;
        for (int c = 0; c < d.channels;) {
          const std::size_t vl = __riscv_vsetvl_e8m8(std::size_t(d.channels - c));
          if (empty) {
            __riscv_vse8_v_u8m8(reinterpret_cast<std::uint8_t*>(out + c), __riscv_vmv_v_x_u8m8(0, vl), vl);
          } else if constexpr (std::is_signed_v<T>) {
            const auto* row = reinterpret_cast<const std::int8_t*>(first + c);
            vint8m8_t best = __riscv_vle8_v_i8m8(row, vl);
            for (int i = rows.begin; i < rows.end; ++i, row += pitch)
              for (int j = 0; j < cols.count(); ++j)
                best = __riscv_vmax_vv_i8m8(best, __riscv_vle8_v_i8m8(row + std::ptrdiff_t(j) * d.channels, vl), vl);
            __riscv_vse8_v_i8m8(reinterpret_cast<std::int8_t*>(out + c), best, vl);
          } else {
            const auto* row = reinterpret_cast<const std::uint8_t*>(first + c);
            vuint8m8_t best = __riscv_vle8_v_u8m8(row, vl);
            for (int i = rows.begin; i < rows.end; ++i, row += pitch)
              for (int j = 0; j < cols.count(); ++j)
                best = __riscv_vmaxu_vv_u8m8(best, __riscv_vle8_v_u8m8(row + std::ptrdiff_t(j) * d.channels, vl), vl);
            __riscv_vse8_v_u8m8(reinterpret_cast<std::uint8_t*>(out + c), best, vl);
          }
          c += int(vl);
        }
      }
    }
  }
}

/// reference::average_pool2d's contract: floor((2 * sum + count) / (2 * count)) clamped to T,
/// with vdiv on int32 lanes (the dividend moved down by 2 * count - 1 when negative turns its
/// truncation into the floor); a window without a counted cell gives 0.
template <class T>
void average_pool2d(const reference::pool2d_dims& d, bool count_include_pad, const T* in, T* out) {
  const std::ptrdiff_t pitch = std::ptrdiff_t(d.in_w) * d.channels;
  constexpr std::int32_t lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  for (int n = 0; n < d.batch; ++n) {
    const T* in_n = in + std::ptrdiff_t(n) * d.in_h * pitch;
    for (int y = 0; y < d.out_h; ++y) {
      const int iy0 = window::origin(y, d.stride_h, d.pad_top);
      const auto rows = window::taps_inside(iy0, d.kernel_h, 1, d.in_h);
      // Window rows inside the padded extent [-pad_top, in_h + pad_bottom).
      const auto rows_pad = window::taps_inside(iy0 + d.pad_top, d.kernel_h, 1, d.in_h + d.pad_top + d.pad_bottom);
      for (int x = 0; x < d.out_w; ++x, out += d.channels) {
        const int ix0 = window::origin(x, d.stride_w, d.pad_left);
        const auto cols = window::taps_inside(ix0, d.kernel_w, 1, d.in_w);
        const auto cols_pad = window::taps_inside(ix0 + d.pad_left, d.kernel_w, 1, d.in_w + d.pad_left + d.pad_right);
        const int inside_h = rows.count() > 0 ? rows.count() : 0, inside_w = cols.count() > 0 ? cols.count() : 0;
        int count = inside_h * inside_w;
        if (count_include_pad) {
          const int ph = rows_pad.count() > 0 ? rows_pad.count() : 0, pw = cols_pad.count() > 0 ? cols_pad.count() : 0;
          count = ph * pw;
        }
        const T* first = in_n + std::ptrdiff_t(iy0 + rows.begin) * pitch + std::ptrdiff_t(ix0 + cols.begin) * d.channels;
        for (int c = 0; c < d.channels;) {
          const std::size_t vl = __riscv_vsetvl_e32m8(std::size_t(d.channels - c));
          vint32m8_t sum = __riscv_vmv_v_x_i32m8(0, vl);
          if (count > 0 && inside_h > 0 && inside_w > 0) {
            const T* row = first + c;
            for (int i = 0; i < inside_h; ++i, row += pitch)
              for (int j = 0; j < inside_w; ++j) {
                const T* cell = row + std::ptrdiff_t(j) * d.channels;
                if constexpr (std::is_signed_v<T>)
                  sum = __riscv_vadd_vv_i32m8(
                      sum, __riscv_vsext_vf4_i32m8(__riscv_vle8_v_i8m2(reinterpret_cast<const std::int8_t*>(cell), vl), vl),
                      vl);
                else
                  sum = __riscv_vadd_vv_i32m8(
                      sum,
                      __riscv_vreinterpret_v_u32m8_i32m8(__riscv_vzext_vf4_u32m8(
                          __riscv_vle8_v_u8m2(reinterpret_cast<const std::uint8_t*>(cell), vl), vl)),
                      vl);
              }
          }
          vint32m8_t v = __riscv_vmv_v_x_i32m8(0, vl);
          if (count > 0) {
            const std::int32_t den = 2 * count;
            vint32m8_t num = __riscv_vadd_vx_i32m8(__riscv_vsll_vx_i32m8(sum, 1, vl), count, vl);
            const vbool4_t negative = __riscv_vmslt_vx_i32m8_b4(num, 0, vl);
            num = __riscv_vsub_vx_i32m8_mu(negative, num, num, den - 1, vl);
            v = __riscv_vdiv_vx_i32m8(num, den, vl);
            v = __riscv_vmin_vx_i32m8(__riscv_vmax_vx_i32m8(v, lo, vl), hi, vl);
          }
          const vint16m4_t h = __riscv_vncvt_x_x_w_i16m4(v, vl);
          __riscv_vse8_v_i8m2(reinterpret_cast<std::int8_t*>(out + c), __riscv_vncvt_x_x_w_i8m2(h, vl), vl);
          c += int(vl);
        }
      }
    }
  }
}

}  // namespace tessera::kernels::rvv
