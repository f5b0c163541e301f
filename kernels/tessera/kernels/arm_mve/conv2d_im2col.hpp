// arm_mve convolution (groups == 1): im2col of 3 output pixels at a time, then the 3 x 2
// micro-kernel over every output channel pair (mat_mult_s8.hpp), then the requantization of
// the 3 pixels (requant.hpp). A 1x1 convolution of int8 activations skips im2col: its rows are
// the input pixels themselves (pointwise layers read the input in place).
//
// Measured (QEMU mps3-an547, -O2, guest instructions per multiply-add, int8, per-channel
// requantization): 3x3 16->16 on 32x32 0.21 (micro-kernel 0.146, im2col 0.04, epilogue 0.02),
// 3x3 64->64 on 8x8 0.145, 1x1 32->64 on 48x48 0.20 (k <= 32: the rows stay in registers),
// 10x4 1->64 (keyword spotting) 0.40. CMSIS-NN on the same layers: 0.40, 0.21, 0.62, 0.96.
// Interior pixels are expanded by one assembly loop per pixel, border pixels (padding) by
// im2col_pixel; the 3 pixels' outputs are requantized together (requant_block3).
#pragma once

#include <cstdint>

#include <tessera/core/requant.hpp>
#include <tessera/kernels/arch/arm_mve.hpp>
#include <tessera/kernels/arm_mve/common.hpp>
#include <tessera/kernels/arm_mve/mat_mult_s8.hpp>
#include <tessera/kernels/arm_mve/requant.hpp>
#include <tessera/kernels/arm_mve/traits.hpp>
#include <tessera/kernels/reference/conv2d.hpp>

namespace tessera::kernels::arm_mve {

namespace detail {

/// Per-call constants of the im2col expansion (kept out of `d`, which the copy loops' memory
/// clobbers would make the compiler reload for every kernel row).
struct im2col_geometry {
  int row_bytes;         ///< kernel_w * in_c: one kernel row of a pixel's im2col row
  int rows;              ///< kernel_h
  std::ptrdiff_t pitch;  ///< in_w * in_c: one input row
  std::ptrdiff_t tap_h;  ///< dilation_h * pitch: between kernel rows
  int y_last, x_last;    ///< (kernel_h - 1) * dilation_h, (kernel_w - 1) * dilation_w
  bool contiguous;       ///< dilation_w == 1: a kernel row is one run of the input
};

inline im2col_geometry make_im2col_geometry(const reference::conv2d_dims& d) {
  const std::ptrdiff_t pitch = std::ptrdiff_t(d.in_w) * d.in_c;
  return {d.kernel_w * d.in_c,
          d.kernel_h,
          pitch,
          d.dilation_h * pitch,
          (d.kernel_h - 1) * d.dilation_h,
          (d.kernel_w - 1) * d.dilation_w,
          d.dilation_w == 1};
}

/// The im2col row of a pixel whose window lies inside the input (and dilation_w == 1):
/// kernel_h runs of row_bytes bytes, tap_h apart, in one assembly loop (7 instructions per
/// kernel row plus 3 per 16 bytes; x - 128 for uint8).
template <class TIn>
inline void im2col_inside(const im2col_geometry& g, const TIn* src, std::int8_t* dst) {
  int rows = g.rows;
  const TIn* s = src;
  std::int8_t* d = dst;
  const std::int8_t* s_run;
  std::int8_t* d_run;
  if constexpr (std::is_signed_v<TIn>) {
    asm volatile(
        "1:\n"
        "mov %[sr], %[s]\n"
        "mov %[dr], %[d]\n"
        "wlstp.8 lr, %[n], 3f\n"
        "2:\n"
        "vldrb.8 q0, [%[sr]], #16\n"
        "vstrb.8 q0, [%[dr]], #16\n"
        "letp lr, 2b\n"
        "3:\n"
        "add %[s], %[s], %[tap]\n"
        "add %[d], %[d], %[n]\n"
        "subs %[rows], %[rows], #1\n"
        "bne 1b\n"
        : [s] "+r"(s), [d] "+r"(d), [rows] "+r"(rows), [sr] "=&r"(s_run), [dr] "=&r"(d_run)
        : [n] "r"(g.row_bytes), [tap] "r"(g.tap_h)
        : "lr", "q0", "memory", "cc");
  } else {
    asm volatile(
        "vmov.i8 q1, #0x80\n"
        "1:\n"
        "mov %[sr], %[s]\n"
        "mov %[dr], %[d]\n"
        "wlstp.8 lr, %[n], 3f\n"
        "2:\n"
        "vldrb.8 q0, [%[sr]], #16\n"
        "veor q0, q0, q1\n"
        "vstrb.8 q0, [%[dr]], #16\n"
        "letp lr, 2b\n"
        "3:\n"
        "add %[s], %[s], %[tap]\n"
        "add %[d], %[d], %[n]\n"
        "subs %[rows], %[rows], #1\n"
        "bne 1b\n"
        : [s] "+r"(s), [d] "+r"(d), [rows] "+r"(rows), [sr] "=&r"(s_run), [dr] "=&r"(d_run)
        : [n] "r"(g.row_bytes), [tap] "r"(g.tap_h)
        : "lr", "q0", "q1", "memory", "cc");
  }
}

/// The im2col row of output pixel (oy, ox): [kernel_h][kernel_w][in_c] int8 (x - 128 for uint8
/// inputs), padding as the true value 0. Any pixel; conv2d_im2col sends only the border ones
/// here. Per kernel row, the taps j in [j0, j1) lie inside (contiguous when dilation_w is 1),
/// the others are padding.
template <class TIn>
[[gnu::noinline]] void im2col_pixel(const reference::conv2d_dims& d, const im2col_geometry& g, const TIn* in, int oy,
                                    int ox, std::int8_t* dst) {
  const int iy0 = oy * d.stride_h - d.pad_top;
  const int ix0 = ox * d.stride_w - d.pad_left;
  // Contiguous kernel rows: taps j in [j0, j1) are inside, the same for every kernel row.
  const int j0 = ix0 < 0 ? (-ix0 < d.kernel_w ? -ix0 : d.kernel_w) : 0;
  int j1 = d.in_w - ix0 < d.kernel_w ? d.in_w - ix0 : d.kernel_w;
  if (j1 < j0) j1 = j0;
  const int left = j0 * d.in_c, inside = (j1 - j0) * d.in_c, right = (d.kernel_w - j1) * d.in_c;
  for (int i = 0; i < d.kernel_h; ++i, dst += g.row_bytes) {
    const int iy = iy0 + i * d.dilation_h;
    if (iy < 0 || iy >= d.in_h) {
      arch::mve::fill_bytes(dst, zero_as_s8<TIn>, g.row_bytes);
      continue;
    }
    const TIn* src = in + iy * g.pitch;
    if (g.contiguous) {
      if (left > 0) arch::mve::fill_bytes(dst, zero_as_s8<TIn>, left);
      if (inside > 0) copy_as_s8(dst + left, src + std::ptrdiff_t(ix0 + j0) * d.in_c, inside);
      if (right > 0) arch::mve::fill_bytes(dst + left + inside, zero_as_s8<TIn>, right);
    } else {
      for (int j = 0; j < d.kernel_w; ++j) {
        const int ix = ix0 + j * d.dilation_w;
        if (ix < 0 || ix >= d.in_w) arch::mve::fill_bytes(dst + j * d.in_c, zero_as_s8<TIn>, d.in_c);
        else copy_as_s8(dst + j * d.in_c, src + std::ptrdiff_t(ix) * d.in_c, d.in_c);
      }
    }
  }
}

}  // namespace detail

/// Convolution, groups == 1, NHWC (reference::conv2d's contract, bit-exact).
///
/// - `in`: [batch][in_h][in_w][in_c] int8 or uint8; `w`: [out_c][kernel_h][kernel_w][in_c] int8.
/// - `bias`: [out_c] int32 or null; `rq`: disabled, per tensor or per output channel.
/// - `out`: [batch][out_h][out_w][out_c]; 8/16-bit outputs requantized, int32 raw when disabled.
/// - `scratch`: conv2d_scratch(d).total bytes, any alignment.
template <class TIn, class TOut>
void conv2d_im2col(const reference::conv2d_dims& d, const TIn* in, const std::int8_t* w, const std::int32_t* bias,
                   const requant_params& rq, TOut* out, void* scratch) {
  const int k = d.kernel_h * d.kernel_w * d.in_c;
  const int pixels = d.out_h * d.out_w;
  if (pixels <= 0 || d.out_c <= 0) return;
  const scratch_parts layout = conv2d_scratch(d);
  std::byte* base = align16(scratch);
  auto* table = scratch_part<std::int32_t>(base, layout, 0);
  auto* acc = scratch_part<std::int32_t>(base, layout, 1);
  auto* cols = scratch_part<std::int8_t>(base, layout, 2);
  const requant_plan plan =
      std::is_signed_v<TIn>
          ? plan_requant(rq, d.out_c, bias, no_correction{}, s8_products_bound(k), table)
          : plan_requant(rq, d.out_c, bias, weight_sum_correction{w, k}, s8_products_bound(k), table);
  // A 1x1 kernel with stride 1 and no padding maps output pixel p to input pixel p: int8 rows
  // are read in place, 3 consecutive pixels k = in_c bytes apart.
  const bool direct = std::is_signed_v<TIn> && d.kernel_h == 1 && d.kernel_w == 1 && d.stride_h == 1 &&
                      d.stride_w == 1 && d.pad_top == 0 && d.pad_left == 0 && d.out_h == d.in_h && d.out_w == d.in_w;
  const std::ptrdiff_t in_pitch = std::ptrdiff_t(d.in_w) * d.in_c;
  const detail::im2col_geometry geometry = detail::make_im2col_geometry(d);
  for (int b = 0; b < d.batch; ++b) {
    const TIn* in_b = in + std::ptrdiff_t(b) * d.in_h * in_pitch;
    TOut* out_b = out + std::ptrdiff_t(b) * pixels * d.out_c;
    // The next pixel to expand, and its output row's window: the columns [x_lo, x_hi) whose
    // window lies inside the input (none if its rows do not), the input at column x_lo.
    int oy = 0, ox = 0, x_lo = 0, x_hi = 0;
    const TIn* src = in_b;
    auto start_row = [&] {
      const int iy0 = oy * d.stride_h - d.pad_top;
      const bool rows_inside = geometry.contiguous && iy0 >= 0 && iy0 + geometry.y_last < d.in_h;
      x_lo = (d.pad_left + d.stride_w - 1) / d.stride_w;
      const int room = d.in_w - geometry.x_last + d.pad_left;  // window starts x*sw < room are inside
      x_hi = rows_inside && room > 0 ? (room - 1) / d.stride_w + 1 : 0;
      if (x_hi > d.out_w) x_hi = d.out_w;
      if (x_hi < x_lo) x_hi = x_lo;
      if (x_hi > x_lo) src = in_b + iy0 * in_pitch + std::ptrdiff_t(x_lo * d.stride_w - d.pad_left) * d.in_c;
    };
    const std::ptrdiff_t src_step = std::ptrdiff_t(d.stride_w) * d.in_c;
    if (!direct) start_row();
    for (int p0 = 0; p0 < pixels; p0 += tile_rows) {
      const int rows = pixels - p0 < tile_rows ? pixels - p0 : tile_rows;
      const std::int8_t* x = cols;
      if (direct && rows == tile_rows) {
        x = reinterpret_cast<const std::int8_t*>(in_b) + std::ptrdiff_t(p0) * k;
      } else if (direct) {
        // The last pixels: copied, so the unused third row reads scratch, not past the input.
        arch::mve::copy_bytes(cols, reinterpret_cast<const std::int8_t*>(in_b) + std::ptrdiff_t(p0) * k, rows * k);
      } else {
        for (int r = 0; r < rows; ++r) {
          // (an empty kernel, k == 0, has nothing to expand: its sums are 0)
          if (k > 0 && ox >= x_lo && ox < x_hi)
            detail::im2col_inside(geometry, src + std::ptrdiff_t(ox - x_lo) * src_step, cols + r * k);
          else if (k > 0)
            detail::im2col_pixel(d, geometry, in_b, oy, ox, cols + r * k);
          if (++ox == d.out_w) {
            ox = 0, ++oy;
            if (oy < d.out_h) start_row();
          }
        }
      }
      if (k > 0) mat_mult_3xn_s8(x, k, w, d.out_c, acc);
      else arch::mve::fill_bytes(acc, 0, static_cast<int>(block_acc_bytes(d.out_c)));
      TOut* o = out_b + std::ptrdiff_t(p0) * d.out_c;
      if (rows == tile_rows) requant_block3(plan, acc, d.out_c, o, d.out_c);
      else for (int r = 0; r < rows; ++r) requant_row(plan, acc + 2 * r, acc_layout::pairs, d.out_c, o + r * d.out_c);
    }
  }
}

}  // namespace tessera::kernels::arm_mve
