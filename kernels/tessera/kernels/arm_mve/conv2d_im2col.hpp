// arm_mve convolution (groups == 1): im2col of 3 output pixels at a time, then the 3 x 2
// micro-kernel over every output channel pair (mat_mult_s8.hpp), then the requantization of
// the 3 pixels (requant.hpp). A 1x1 convolution of int8 activations skips im2col: its rows are
// the input pixels themselves (pointwise layers read the input in place).
//
// Measured (QEMU mps3-an547, -O2, guest instructions per multiply-add, int8, per-channel
// requantization; docs/benchmarks.md L1, L3, L4, L7): 3x3 16->16 on 32x32 0.195 (k = 144: the
// unrolled micro-kernel), 3x3 64->64 on 8x8 0.145, 1x1 32->64 on 48x48 0.202 (k = 32: the rows
// stay in registers), 10x4 1->64 (keyword spotting) 0.260 (im2col by gathers). CMSIS-NN on the
// same layers: 0.40, 0.21, 0.62, 0.96.
// The generic pixel-block loop (algorithm/conv2d.hpp): interior pixels are expanded by one
// assembly loop per pixel, border pixels (padding) by the generic im2col walk
// (algorithm/im2col.hpp), or, when a whole window spans at most 256 input bytes, every pixel
// by byte gathers (gather_im2col); the 3 pixels' outputs are requantized together
// (requant_block3).
#pragma once

#include <arm_acle.h>

#include <cstdint>

#include <tessera/core/requant.hpp>
#include <tessera/kernels/algorithm/conv2d.hpp>
#include <tessera/kernels/algorithm/im2col.hpp>
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
  bool contiguous;       ///< dilation_w == 1: a kernel row is one run of the input
};

inline im2col_geometry make_im2col_geometry(const reference::conv2d_dims& d) {
  const std::ptrdiff_t pitch = std::ptrdiff_t(d.in_w) * d.in_c;
  return {d.kernel_w * d.in_c,
          d.kernel_h,
          pitch,
          d.dilation_h * pitch,
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

/// im2col's `Pack` for arm_mve (algorithm/im2col.hpp): int8 rows, uint8 values as x - 128 and
/// padding as the byte that stands for the pad value (`pad`, as_s8 of the input's zero point).
template <class TIn>
struct copy_to_s8 {
  std::uint8_t pad;
  std::int8_t* zero(std::int8_t* dst, int n) const {
    if (n > 0) arch::mve::fill_bytes(dst, pad, n);
    return dst + n;
  }
  static std::int8_t* copy(std::int8_t* dst, const TIn* src, int n) {
    if (n > 0) copy_as_s8(dst, src, n);
    return dst + n;
  }
};

/// The im2col row of a border pixel (some tap in the padding), by the generic walk (its window
/// parameters in registers: a per-kernel-row call costs 12% on the 10x4 layer). Flattened so
/// that the pack, and its pad byte, stay in registers: when GCC left the dilated walk out of
/// line, the pack lived on the stack and every padding run reloaded it (0.7% on that layer).
template <class TIn>
[[gnu::noinline, gnu::flatten]] void im2col_border(const reference::conv2d_dims& d, const TIn* image, int oy,
                                                   int ox, std::int8_t* dst) {
  copy_to_s8<TIn> pack{as_s8<TIn>(d.pad_value)};
  algorithm::im2col_pixel(d, image, oy, ox, dst, pack);
}

/// im2col by byte gathers, for layers whose whole window spans at most 256 bytes of the input
/// (first layers: few channels on a narrow map; keyword spotting's 10x4 window over 10 columns
/// of one channel, whose 4-byte kernel rows cost the run-copy loop 10 instructions each and
/// the generic walk of a border pixel about 350). Per 16 bytes of a pixel's row, one gather at
/// fixed offsets from the window's origin and one store (4 instructions with the loop's; 16 a
/// pixel there against about 105 inside and 350 on the border). A border pixel's lanes are
/// predicated on their input row and column lying inside the image (each lane's row and column
/// relative to the origin are tables too; 12 instructions per 16 bytes), the others take the
/// pad byte, and no lane outside the image is read.
struct gather_im2col {
  static constexpr int max_groups = 4;  ///< k <= 64: the tables live on the caller's stack
  int groups = 0;                       ///< 16-byte groups of a pixel's row; 0: not applicable
  int span_h = 0, span_w = 0;           ///< the window's rows and columns in the input
  // row, offset, col: 64 bytes apart, so that one pointer reaches all three (immediates +-64).
  alignas(16) std::int8_t row[max_groups * 16];       ///< input rows below the origin (127: no lane)
  alignas(16) std::uint8_t offset[max_groups * 16];   ///< bytes from the window's origin
  alignas(16) std::int8_t col[max_groups * 16];       ///< input columns right of the origin

  /// The tables of `d`, or groups = 0 when its windows do not fit them (or `use` is false).
  gather_im2col(const reference::conv2d_dims& d, bool use) {
    const int k = d.kernel_h * d.kernel_w * d.in_c;
    const int row_bytes = d.kernel_w * d.in_c;
    span_h = window::span(1, d.stride_h, d.kernel_h, d.dilation_h);
    span_w = window::span(1, d.stride_w, d.kernel_w, d.dilation_w);
    const std::int64_t last = std::int64_t(span_h - 1) * d.in_w * d.in_c + std::int64_t(span_w) * d.in_c - 1;
    if (!use || k < 1 || k > 16 * max_groups || span_h > 127 || span_w > 127 || last > 255) return;
    groups = (k + 15) / 16;
    for (int t = 0; t < 16 * groups; ++t) {
      const int r = t / row_bytes, cx = t % row_bytes / d.in_c, ci = t % d.in_c;
      const bool lane = t < k;
      offset[t] = lane ? static_cast<std::uint8_t>((r * d.dilation_h * d.in_w + cx * d.dilation_w) * d.in_c + ci) : 0;
      row[t] = lane ? static_cast<std::int8_t>(r * d.dilation_h) : 127;
      col[t] = lane ? static_cast<std::int8_t>(cx * d.dilation_w) : 0;
    }
  }

  /// The im2col row (k bytes, as int8) of the window whose origin is input cell (iy0, ix0).
  template <class TIn>
  void pixel(const reference::conv2d_dims& d, const TIn* image, int iy0, int ix0, int k, std::int8_t* dst) const {
    const auto* origin = reinterpret_cast<const std::uint8_t*>(image) + (std::ptrdiff_t(iy0) * d.in_w + ix0) * d.in_c;
    const std::uint8_t* t = offset;
    const bool inside = iy0 >= 0 && iy0 + span_h <= d.in_h && ix0 >= 0 && ix0 + span_w <= d.in_w;
    if (inside) {
      // SETUP, FLIP: uint8 inputs as x - 128 (one VEOR), nothing for int8.
#define TESSERA_MVE_GATHER_ROW(SETUP, FLIP)                                                    \
  asm volatile(SETUP                                                                           \
               "wlstp.8 lr, %[k], 2f\n"                                                       \
               "1:\n"                                                                         \
               "vldrb.u8 q1, [%[t]], #16\n"                                                   \
               "vldrb.u8 q0, [%[o], q1]\n" FLIP                                               \
               "vstrb.8 q0, [%[dst]], #16\n"                                                  \
               "letp lr, 1b\n"                                                                \
               "2:\n"                                                                         \
               : [t] "+r"(t), [dst] "+r"(dst)                                                  \
               : [k] "r"(k), [o] "r"(origin)                                                   \
               : "lr", "q0", "q1", "q2", "memory")
      if constexpr (std::is_signed_v<TIn>) TESSERA_MVE_GATHER_ROW("", "");
      else TESSERA_MVE_GATHER_ROW("vmov.i8 q2, #0x80\n", "veor q0, q0, q2\n");
#undef TESSERA_MVE_GATHER_ROW
      return;
    }
    // The lanes inside the image: -iy0 <= row < in_h - iy0, likewise columns; the bounds
    // saturated to int8 keep every comparison's answer (the lanes' values lie in [0, 127]).
    const int row_lo = __ssat(-iy0, 8), row_hi = __ssat(d.in_h - iy0, 8);
    const int col_lo = __ssat(-ix0, 8), col_hi = __ssat(d.in_w - ix0, 8);
    const int pad = static_cast<std::uint8_t>(as_s8<TIn>(d.pad_value));
#define TESSERA_MVE_GATHER_BORDER(SETUP, FLIP)                                                  \
  asm volatile("vdup.8 q4, %[pad]\n" SETUP                                                     \
               "wlstp.8 lr, %[k], 2f\n"                                                        \
               "1:\n"                                                                          \
               "vldrb.s8 q2, [%[t], #-64]\n"                                                   \
               "vldrb.s8 q3, [%[t], #64]\n"                                                    \
               "vldrb.u8 q1, [%[t]], #16\n"                                                    \
               "vpttt.s8 ge, q2, %[rlo]\n"                                                     \
               "vcmpt.s8 lt, q2, %[rhi]\n"                                                     \
               "vcmpt.s8 ge, q3, %[clo]\n"                                                     \
               "vcmpt.s8 lt, q3, %[chi]\n"                                                     \
               "vpst\n"                                                                        \
               "vldrbt.u8 q0, [%[o], q1]\n" FLIP                                               \
               "vpsel q0, q0, q4\n"                                                            \
               "vstrb.8 q0, [%[dst]], #16\n"                                                   \
               "letp lr, 1b\n"                                                                 \
               "2:\n"                                                                          \
               : [t] "+r"(t), [dst] "+r"(dst)                                                   \
               : [k] "r"(k), [o] "r"(origin), [rlo] "r"(row_lo), [rhi] "r"(row_hi), [clo] "r"(col_lo), \
                 [chi] "r"(col_hi), [pad] "r"(pad)                                              \
               : "lr", "q0", "q1", "q2", "q3", "q4", "q5", "memory", "cc")
    if constexpr (std::is_signed_v<TIn>) TESSERA_MVE_GATHER_BORDER("", "");
    else TESSERA_MVE_GATHER_BORDER("vmov.i8 q5, #0x80\n", "veor q0, q0, q5\n");
#undef TESSERA_MVE_GATHER_BORDER
  }
};

/// The convolution's atom (algorithm/conv2d.hpp): 3-pixel im2col blocks (interior pixels by the
/// assembly loop, border pixels by the generic walk; 1x1 int8 layers without stride or padding
/// read in place), the 3 x 2 micro-kernel over every channel pair, the 3-pixel requantization.
/// The interior pixels of a row are found by window::interior_outputs and walked with one
/// pointer step per pixel (tuned: recomputing each window's start costs about 4% on 3x3 layers).
template <class TIn, class TOut>
struct conv2d_atom {
  static constexpr int pixels = tile_rows;
  const reference::conv2d_dims& d;
  const std::int8_t* w;
  int k;
  bool direct;  ///< 1x1, stride 1, no padding, int8: the input rows are the im2col rows
  im2col_geometry geometry;
  const requant_plan* plan;  ///< a pointer, so that the atom's own fields stay in registers
  std::int32_t* acc;
  std::int8_t* cols;
  const gather_im2col* gather;  ///< the gather tables when the layer's windows fit them, else null
  mat_mult_3x2_fn kernel;       ///< mat_mult_3x2_for(k)
  const std::int8_t* x = nullptr;  ///< the block's rows
  // The next pixel to expand, and its output row's interior columns [x_lo, x_hi) (none if the
  // row's windows leave the input vertically) with the input at column x_lo; with gathers, the
  // next window's origin (oy, ox) in the input and the row's end origin x_hi.
  int oy = 0, ox = 0, x_lo = 0, x_hi = 0;
  const TIn* src = nullptr;

  // Once per output row, from two places: out of line.
  [[gnu::noinline]] void start_row(const TIn* image) {
    const int iy0 = window::origin(oy, d.stride_h, d.pad_top);
    const bool rows_inside =
        geometry.contiguous && iy0 >= 0 && iy0 + window::span(1, d.stride_h, d.kernel_h, d.dilation_h) <= d.in_h;
    const auto inside = window::interior_outputs(d.out_w, d.stride_w, d.pad_left, d.kernel_w, d.dilation_w, d.in_w);
    x_lo = inside.begin;
    x_hi = rows_inside ? inside.end : inside.begin;
    if (x_hi > x_lo) src = image + iy0 * geometry.pitch + std::ptrdiff_t(window::origin(x_lo, d.stride_w, d.pad_left)) * d.in_c;
  }
  void pack(const TIn* image, int p0, int count) {
    x = cols;
    if (direct) {  // output pixel p reads input pixel p
      const auto* rows = reinterpret_cast<const std::int8_t*>(image) + std::ptrdiff_t(p0) * k;
      // The last pixels are copied, so the unused third row reads scratch, not past the input.
      if (count == tile_rows) x = rows;
      else arch::mve::copy_bytes(cols, rows, count * k);
      return;
    }
    if (gather != nullptr) {  // (oy, ox): the window's origin in the input
      if (p0 == 0) oy = -d.pad_top, ox = -d.pad_left, x_hi = d.out_w * d.stride_w - d.pad_left;
      for (int r = 0; r < count; ++r) {
        gather->pixel(d, image, oy, ox, k, cols + r * k);
        ox += d.stride_w;
        if (ox == x_hi) ox = -d.pad_left, oy += d.stride_h;
      }
      return;
    }
    if (p0 == 0) {
      oy = ox = 0;
      start_row(image);
    }
    const std::ptrdiff_t src_step = std::ptrdiff_t(d.stride_w) * d.in_c;
    for (int r = 0; r < count; ++r) {
      // (an empty kernel, k == 0, has nothing to expand: its sums are 0)
      if (k > 0 && ox >= x_lo && ox < x_hi) im2col_inside(geometry, src + std::ptrdiff_t(ox - x_lo) * src_step, cols + r * k);
      else if (k > 0) im2col_border(d, image, oy, ox, cols + r * k);
      if (++ox == d.out_w) {
        ox = 0, ++oy;
        if (oy < d.out_h) start_row(image);
      }
    }
  }
  void compute(int count, TOut* out, std::ptrdiff_t) {
    if (k > 0) mat_mult_3xn_s8(x, k, w, d.out_c, acc, kernel);
    else arch::mve::fill_bytes(acc, 0, static_cast<int>(block_acc_bytes(d.out_c)));
    if (count == tile_rows) requant_block3(*plan, acc, d.out_c, out, d.out_c);
    else for (int r = 0; r < count; ++r) requant_row(*plan, acc + 2 * r, acc_layout::pairs, d.out_c, out + r * d.out_c);
  }
};

/// The 3 x 2 micro-kernel of a convolution: the one a call picks and the one a whole layer
/// fixes at compile time (kernels.hpp, layer_choices).
constexpr mat_mult_3x2_fn conv2d_micro_kernel(const reference::conv2d_dims& d) {
  return mat_mult_3x2_for(static_cast<int>(conv2d_reduction(d)));
}

/// conv2d_im2col's body, shared by every choice of micro-kernel (one copy per element types).
template <class TIn, class TOut>
[[gnu::noinline]] void conv2d_im2col_by(const reference::conv2d_dims& d, const TIn* in, const std::int8_t* w,
                                        const std::int32_t* bias, const requant_params& rq, TOut* out, void* scratch,
                                        mat_mult_3x2_fn kernel) {
  const int k = d.kernel_h * d.kernel_w * d.in_c;
  const auto layout = conv2d_scratch(d);
  auto* table = layout.part<std::int32_t>(scratch, 0);
  const requant_plan plan =
      std::is_signed_v<TIn>
          ? plan_requant(rq, d.out_c, bias, no_correction{}, s8_products_bound(k), table)
          : plan_requant(rq, d.out_c, bias, weight_sum_correction{w, k}, s8_products_bound(k), table);
  const bool direct = std::is_signed_v<TIn> && d.kernel_h == 1 && d.kernel_w == 1 && d.stride_h == 1 &&
                      d.stride_w == 1 && d.pad_top == 0 && d.pad_left == 0 && d.out_h == d.in_h && d.out_w == d.in_w;
  const gather_im2col gather(d, !direct);
  conv2d_atom<TIn, TOut> atom{d,
                              w,
                              k,
                              direct,
                              make_im2col_geometry(d),
                              &plan,
                              layout.part<std::int32_t>(scratch, 1),
                              layout.part<std::int8_t>(scratch, 2),
                              gather.groups > 0 ? &gather : nullptr,
                              kernel};
  algorithm::conv2d_pixel_blocks(d, in, out, atom);
}
}  // namespace detail

/// Convolution, groups == 1, NHWC (reference::conv2d's contract, bit-exact).
///
/// - `in`: [batch][in_h][in_w][in_c] int8 or uint8; `w`: [out_c][kernel_h][kernel_w][in_c] int8.
/// - `bias`: [out_c] int32 or null; `rq`: disabled, per tensor or per output channel.
/// - `out`: [batch][out_h][out_w][out_c]; 8/16-bit outputs requantized, int32 raw when disabled.
/// - `scratch`: conv2d_scratch(d).total bytes, any alignment.
/// - `Kernel`: the micro-kernel when the caller chose it at compile time (a whole layer:
///   mat_mult_3x2_for of its k), else null and chosen here.
template <class TIn, class TOut, mat_mult_3x2_fn Kernel = nullptr>
void conv2d_im2col(const reference::conv2d_dims& d, const TIn* in, const std::int8_t* w, const std::int32_t* bias,
                   const requant_params& rq, TOut* out, void* scratch) {
  mat_mult_3x2_fn kernel = Kernel;
  if constexpr (Kernel == nullptr) kernel = detail::conv2d_micro_kernel(d);
  detail::conv2d_im2col_by(d, in, w, bias, rq, out, scratch, kernel);
}

}  // namespace tessera::kernels::arm_mve
