// arm_mve depthwise convolution, DORY's hybrid variant (seeds/001, section 4.3): the input tile
// stays channels-last in memory, one channel at a time is reordered into a padded CHW plane in
// scratch, outputs are computed along the plane's rows, and written back channels-last.
//
// With the plane in scratch, one output's window is up to 16 bytes at fixed offsets from its
// corner: one 8-bit-offset gather (VLDRB.U8 [base, Q]) brings a chunk of up to 16 taps (whole
// kernel rows) into lanes, and one VMLADAV against the channel's weights (zero past the chunk's
// last tap) is the chunk's sum. Per 4 outputs and chunk: 4 gathers, 4 VMLADAV, 1 STM, 1 ADD,
// 1 LE; the epilogue then requantizes the channel's sums 4 at a time and scatters them to the
// NHWC output (stride C), 9 to 15 instructions. The plane is filled with 16-bit-offset gathers,
// 8 elements per 4 instructions. 3x3 stride 1 takes about 0.7 instructions per multiply-add,
// 5x5 about 0.5 (two chunks), against 1.5 to 3.5 for the HWC variant.
//
// Wide inputs are cut into vertical strips of output columns so that a window's gather offsets
// fit in 8 bits; the plane holds one strip, so scratch does not grow with the width. A narrow,
// tall map is computed with rows and columns exchanged (the plane filled column by column;
// depthwise_chw_transposes): keyword spotting's 25 x 5 maps spend 500 instructions a channel
// in the fill and the windows that way, 825 the other. The requantization plan bounds the
// sums by the layer's weights (s8_weights_bound), so layers whose weights keep them in int32
// take the narrow epilogue (9 instructions per 4 outputs, not 11).
//
// uint8 inputs go into the plane as x - 128 (padding as pad_value - 128: the pad value is the
// input's zero point, stored like any input); the table adds 128 * (sum of the channel's taps)
// back.
#pragma once

#include <cstdint>
#include <type_traits>

#include <tessera/core/requant.hpp>
#include <tessera/kernels/arch/arm_mve.hpp>
#include <tessera/kernels/arm_mve/common.hpp>
#include <tessera/kernels/arm_mve/depthwise_hwc.hpp>
#include <tessera/kernels/arm_mve/requant.hpp>
#include <tessera/kernels/arm_mve/traits.hpp>
#include <tessera/kernels/common/requant_epilogue.hpp>
#include <tessera/kernels/reference/conv2d.hpp>

namespace tessera::kernels::arm_mve {

/// The orientation of depthwise_chw's plane: the layer's rows, or its columns (see
/// detail::depthwise_chw_transposes), or chosen by the call.
enum class plane_geometry : std::uint8_t { per_call, rows, exchanged };

namespace detail {

/// plane[r * plane_pitch + i] = src[r * src_pitch + i * stride] for r < rows, i < n: a strided
/// channel of `rows` input rows into plane rows, 8 elements per gather (16-bit offsets,
/// 7 * stride <= 65535), as x - 128 when `Flip`. 4 instructions per 8 elements, 6 per row.
template <bool Flip>
[[gnu::noinline]] void gather_plane(std::int8_t* plane, int plane_pitch, const void* src, int src_pitch, int stride,
                                    int rows, int n) {
  const uint16x8_t offsets = vmulq_n_u16(vidupq_n_u16(0, 1), static_cast<std::uint16_t>(stride));
  const int step = 8 * stride;
  const auto* s = static_cast<const std::uint8_t*>(src);
  const std::uint8_t* sp;
  std::int8_t* dp;
  if constexpr (Flip) {
    const uint16x8_t mask = vdupq_n_u16(0x80);
    asm volatile(
        "3:\n"
        "mov %[sp], %[s]\n"
        "mov %[dp], %[d]\n"
        "wlstp.16 lr, %[n], 2f\n"
        "1:\n"
        "vldrb.u16 q0, [%[sp], %q[off]]\n"
        "veor q0, q0, %q[mask]\n"
        "vstrb.16 q0, [%[dp]], #8\n"
        "add %[sp], %[sp], %[step]\n"
        "letp lr, 1b\n"
        "2:\n"
        "add %[s], %[s], %[spitch]\n"
        "add %[d], %[d], %[dpitch]\n"
        "subs %[rows], %[rows], #1\n"
        "bne 3b\n"
        : [s] "+r"(s), [d] "+r"(plane), [rows] "+r"(rows), [sp] "=&r"(sp), [dp] "=&l"(dp)
        : [n] "r"(n), [off] "w"(offsets), [mask] "w"(mask), [step] "r"(step), [spitch] "r"(src_pitch),
          [dpitch] "r"(plane_pitch)
        : "lr", "q0", "memory", "cc");
  } else {
    asm volatile(
        "3:\n"
        "mov %[sp], %[s]\n"
        "mov %[dp], %[d]\n"
        "wlstp.16 lr, %[n], 2f\n"
        "1:\n"
        "vldrb.u16 q0, [%[sp], %q[off]]\n"
        "vstrb.16 q0, [%[dp]], #8\n"
        "add %[sp], %[sp], %[step]\n"
        "letp lr, 1b\n"
        "2:\n"
        "add %[s], %[s], %[spitch]\n"
        "add %[d], %[d], %[dpitch]\n"
        "subs %[rows], %[rows], #1\n"
        "bne 3b\n"
        : [s] "+r"(s), [d] "+r"(plane), [rows] "+r"(rows), [sp] "=&r"(sp), [dp] "=&l"(dp)
        : [n] "r"(n), [off] "w"(offsets), [step] "r"(step), [spitch] "r"(src_pitch), [dpitch] "r"(plane_pitch)
        : "lr", "q0", "memory", "cc");
  }
}

/// sums[y * sums_pitch + x] (+)= VMLADAV(gather(plane + y*row_step + x*col_step, offsets),
/// weights) for y < out_h, x < out_w (`Accumulate`: added to the sums of earlier chunks). `blk`
/// holds 4 offset vectors (pixels x..x+3) and the weights. 4 pixels per iteration (11
/// instructions, 13 accumulating), then the row's last out_w % 4 pixels one at a time: nothing
/// is computed past a row, so accumulating passes see only their own pixels.
template <bool Accumulate>
[[gnu::noinline]] void plane_dot(const std::int8_t* plane, int row_step, int col_step, int out_h, int out_w,
                                 const std::uint8_t* blk, std::int32_t* sums, int sums_pitch) {
  register std::int32_t s0 asm("r0");
  register std::int32_t s1 asm("r2");
  register std::int32_t s2 asm("r4");
  register std::int32_t s3 asm("r6");
  const std::int8_t* row = plane;
  const void* p = blk;  // the block's address, then the window pointer
  int rows = out_h;
#define TESSERA_MVE_DOT(OP, LOAD4, LOAD1)                                                      \
  asm volatile(                                                                                \
      "vldrw.u32 q4, [%[p]]\n"                                                                 \
      "vldrw.u32 q5, [%[p], #16]\n"                                                            \
      "vldrw.u32 q6, [%[p], #32]\n"                                                            \
      "vldrw.u32 q7, [%[p], #48]\n"                                                            \
      "vldrw.u32 q3, [%[p], #64]\n"                                                            \
      "3:\n"                                                                                   \
      "mov %[p], %[row]\n"                                                                     \
      "wls lr, %[it], 4f\n"                                                                    \
      "1:\n" LOAD4                                                                            \
      "vldrb.u8 q0, [%[p], q4]\n"                                                              \
      OP " %[s0], q0, q3\n"                                                                    \
      "vldrb.u8 q1, [%[p], q5]\n"                                                              \
      OP " %[s1], q1, q3\n"                                                                    \
      "vldrb.u8 q0, [%[p], q6]\n"                                                              \
      OP " %[s2], q0, q3\n"                                                                    \
      "vldrb.u8 q1, [%[p], q7]\n"                                                              \
      OP " %[s3], q1, q3\n"                                                                    \
      "stm %[sums]!, {%[s0], %[s1], %[s2], %[s3]}\n"                                           \
      "add %[p], %[p], %[step], lsl #2\n"                                                      \
      "le lr, 1b\n"                                                                            \
      "4:\n"                                                                                   \
      "wls lr, %[rem], 6f\n"                                                                   \
      "5:\n" LOAD1                                                                            \
      "vldrb.u8 q0, [%[p], q4]\n"                                                              \
      OP " %[s0], q0, q3\n"                                                                    \
      "str %[s0], [%[sums]], #4\n"                                                             \
      "add %[p], %[p], %[step]\n"                                                              \
      "le lr, 5b\n"                                                                            \
      "6:\n"                                                                                   \
      "add %[sums], %[sums], %[skip]\n"                                                        \
      "add %[row], %[row], %[row_step]\n"                                                      \
      "subs %[rows], %[rows], #1\n"                                                            \
      "bne 3b\n"                                                                               \
      : [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3), [sums] "+&r"(sums),     \
        [row] "+&r"(row), [p] "+&r"(p), [rows] "+&r"(rows)                                      \
      : [it] "r"(out_w / 4), [rem] "r"(out_w % 4), [step] "r"(col_step), [row_step] "r"(row_step), \
        [skip] "r"((sums_pitch - out_w) * 4)                                                    \
      : "lr", "q0", "q1", "q3", "q4", "q5", "q6", "q7", "memory", "cc")
  if constexpr (Accumulate) {
    TESSERA_MVE_DOT("vmladava.s8", "ldm %[sums], {%[s0], %[s1], %[s2], %[s3]}\n", "ldr %[s0], [%[sums]]\n");
  } else {
    TESSERA_MVE_DOT("vmladav.s8", "", "");
  }
#undef TESSERA_MVE_DOT
}

// One channel's requantization over `rows` rows of n sums (sums rows 4-aligned apart when
// rows > 1), 4 pixels per iteration, scattered with stride C (the 4 byte offsets in `off`); the
// output moves by `radj` bytes more at each row's end. Same arithmetic as requant.hpp with the
// channel's parameters splatted; lo and hi come as vector operands (no core register left).
#define TESSERA_MVE_DW_LOOP(SETUP, BODY, STORE)                                                \
  asm volatile(SETUP                                                                           \
               "3:\n"                                                                          \
               "wlstp.32 lr, %[n], 2f\n"                                                       \
               "1:\n"                                                                          \
               "vldrw.32 q0, [%[acc]], #16\n" BODY STORE " q0, [%[out], %q[off]]\n"            \
               "add %[out], %[out], %[step]\n"                                                 \
               "letp lr, 1b\n"                                                                 \
               "2:\n"                                                                          \
               "add %[out], %[out], %[radj]\n"                                                 \
               "subs %[rows], %[rows], #1\n"                                                   \
               "bne 3b\n"                                                                      \
               : [acc] "+r"(acc), [out] "+r"(o), [rows] "+r"(rows)                             \
               : [n] "r"(n), [m] "r"(m), [x] "r"(x), [ah] "r"(ah), [lov] "w"(lov), [hiv] "w"(hiv), \
                 [sh] "r"(p.shift_arg), [hsh] "r"(p.high_shift), [one] "r"(1), [off] "w"(offsets), \
                 [step] "r"(step), [radj] "r"(radj)                                             \
               : "lr", "q0", "q1", "q2", "q3", "q4", "memory", "cc")

#define TESSERA_MVE_DW_SETUP_WIDE "vdup.32 q2, %[m]\n vdup.32 q3, %[x]\n vdup.32 q4, %[ah]\n"
#define TESSERA_MVE_DW_SETUP_NARROW "vdup.32 q2, %[m]\n vdup.32 q3, %[ah]\n"
#define TESSERA_MVE_DW_SETUP_RAW "vdup.32 q2, %[m]\n"

#define TESSERA_MVE_DW_BODY_RAW "vadd.i32 q0, q0, q2\n"
#define TESSERA_MVE_DW_BODY_NARROW                                                             \
  "vmul.i32 q0, q0, q2\n"                                                                      \
  "vadd.i32 q0, q0, q3\n"                                                                      \
  "vshl.s32 q0, %[sh]\n"                                                                       \
  "vmax.s32 q0, q0, %q[lov]\n"                                                                 \
  "vmin.s32 q0, q0, %q[hiv]\n"
// The fast form, and the high one without its final shift (the same arithmetic as requant.hpp).
#define TESSERA_MVE_DW_BODY_WIDE(SHIFT)                                                        \
  "vmul.i32 q1, q0, q2\n"                                                                      \
  "vmulh.s32 q0, q0, q2\n"                                                                     \
  "vpt.u32 hi, q1, q3\n"                                                                       \
  "vaddt.i32 q0, q0, %[one]\n"                                                                 \
  "vadd.i32 q0, q0, q4\n" SHIFT                                                                \
  "vmax.s32 q0, q0, %q[lov]\n"                                                                 \
  "vmin.s32 q0, q0, %q[hiv]\n"
#define TESSERA_MVE_DW_BODY_FAST TESSERA_MVE_DW_BODY_WIDE("vshl.s32 q0, %[sh]\n")
#define TESSERA_MVE_DW_BODY_HIGH TESSERA_MVE_DW_BODY_WIDE("")
#define TESSERA_MVE_DW_BODY_GENERAL                                                            \
  "vmul.i32 q1, q0, q2\n"                                                                      \
  "vmulh.s32 q0, q0, q2\n"                                                                     \
  "vadd.i32 q1, q1, q3\n"                                                                      \
  "vpt.u32 hi, q3, q1\n"                                                                       \
  "vaddt.i32 q0, q0, %[one]\n"                                                                 \
  "vadd.i32 q0, q0, q4\n"                                                                      \
  "vqshl.s32 q0, %[hsh]\n"                                                                     \
  "vshl.u32 q1, %[sh]\n"                                                                       \
  "vqadd.s32 q0, q0, q1\n"                                                                     \
  "vmax.s32 q0, q0, %q[lov]\n"                                                                 \
  "vmin.s32 q0, q0, %q[hiv]\n"

#define TESSERA_MVE_DW_PATHS(STORE)                                                                   \
  switch (p.path) {                                                                                   \
    case requant_path::raw: TESSERA_MVE_DW_LOOP(TESSERA_MVE_DW_SETUP_RAW, TESSERA_MVE_DW_BODY_RAW, STORE); break; \
    case requant_path::narrow:                                                                        \
      TESSERA_MVE_DW_LOOP(TESSERA_MVE_DW_SETUP_NARROW, TESSERA_MVE_DW_BODY_NARROW, STORE);            \
      break;                                                                                          \
    case requant_path::fast: TESSERA_MVE_DW_LOOP(TESSERA_MVE_DW_SETUP_WIDE, TESSERA_MVE_DW_BODY_FAST, STORE); break; \
    case requant_path::high: TESSERA_MVE_DW_LOOP(TESSERA_MVE_DW_SETUP_WIDE, TESSERA_MVE_DW_BODY_HIGH, STORE); break; \
    default: TESSERA_MVE_DW_LOOP(TESSERA_MVE_DW_SETUP_WIDE, TESSERA_MVE_DW_BODY_GENERAL, STORE); break; \
  }

/// o[r * row_stride + i * col_stride] = requantized acc[r * acc_row + i] of channel `c`, r <
/// rows, i < n (strides in elements; with rows == 1 and col_stride == C, any n: the whole
/// output in NHWC order). acc_row = round_up(n, 4) when rows > 1 (the tail-predicated loop moves
/// acc by whole vectors).
template <class TOut>
[[gnu::noinline]] void requant_channel(const requant_plan& p, int c, const std::int32_t* acc, int rows, int n,
                                       TOut* o, int col_stride, int row_stride) {
  const std::int32_t* t = p.table + table_index(c);
  const std::int32_t m = t[0], x = t[4], ah = t[8];
  if (p.path == requant_path::scalar) {
    const channel_requant crq{p.rq};
    const int acc_row = rows > 1 ? (n + 3) & ~3 : n;
    for (int r = 0; r < rows; ++r)
      for (int i = 0; i < n; ++i) {
        const auto sum = static_cast<std::uint32_t>(acc[r * acc_row + i]) + static_cast<std::uint32_t>(m);
        o[std::ptrdiff_t(r) * row_stride + std::ptrdiff_t(i) * col_stride] =
            static_cast<TOut>(crq(static_cast<std::int32_t>(sum), c));
      }
    return;
  }
  const int bytes = static_cast<int>(sizeof(TOut)) * col_stride;
  const uint32x4_t offsets = vmulq_n_u32(vidupq_n_u32(0, 1), static_cast<std::uint32_t>(bytes));
  const int32x4_t lov = vdupq_n_s32(p.lo), hiv = vdupq_n_s32(p.hi);
  const int step = 4 * bytes;
  const int radj = row_stride * static_cast<int>(sizeof(TOut)) - (n + 3) / 4 * step;  // to the next row's first pixel
  if constexpr (sizeof(TOut) == 1) {
    TESSERA_MVE_DW_PATHS("vstrb.32")
  } else if constexpr (sizeof(TOut) == 2) {
    TESSERA_MVE_DW_PATHS("vstrh.32")
  } else {
    TESSERA_MVE_DW_PATHS("vstrw.32")
  }
}

/// The same depthwise convolution with the image's rows and columns exchanged (a CHW plane
/// filled column by column computes it).
constexpr reference::conv2d_dims transposed(const reference::conv2d_dims& d) {
  reference::conv2d_dims t = d;
  t.in_h = d.in_w, t.in_w = d.in_h, t.out_h = d.out_w, t.out_w = d.out_h;
  t.kernel_h = d.kernel_w, t.kernel_w = d.kernel_h, t.stride_h = d.stride_w, t.stride_w = d.stride_h;
  t.dilation_h = d.dilation_w, t.dilation_w = d.dilation_h, t.pad_top = d.pad_left, t.pad_left = d.pad_top;
  return t;
}

/// Instructions per channel of the plane fill (gather_plane: 6 a row, 4 per 8 elements) and of
/// the windows (plane_dot: 7 a row and chunk, 11 per 4 outputs, 5 per leftover output), the
/// counts the functions above execute.
constexpr int depthwise_chw_cost(const reference::conv2d_dims& g) {
  return g.in_h * (6 + 4 * ((g.in_w + 7) / 8)) +
         depthwise_chw_chunks(g) * g.out_h * (7 + 11 * (g.out_w / 4) + 5 * (g.out_w % 4));
}

/// Whether depthwise_chw computes on the exchanged geometry: where it is cheaper (a narrow,
/// tall map such as keyword spotting's 25 x 5, whose 5-output rows leave a leftover output per
/// row and fill 5 elements per gather: 500 instructions a channel exchanged against 825), and
/// where it fits the layer's own scratch (one strip both ways, so both planes are the window
/// spans of the whole map, the same bytes; no more sums and chunks) and the 16-bit gather
/// offsets of the fill (7 input rows apart). Once per call, out of line (cheapest tests first).
[[gnu::noinline]] constexpr bool depthwise_chw_transposes(const reference::conv2d_dims& d) {
  if (std::int64_t(d.in_w) * d.in_c * 7 > 65535) return false;
  const auto t = transposed(d);
  if (depthwise_chw_cost(t) >= depthwise_chw_cost(d)) return false;
  if (depthwise_chw_chunks(t) > 2 || depthwise_chw_chunks(t) > depthwise_chw_chunks(d)) return false;
  const int strip = depthwise_chw_strip_width(d);
  return strip >= d.out_w && depthwise_chw_strip_width(t) >= t.out_w &&
         std::int64_t(t.out_h) * ((t.out_w + 3) & ~3) <= std::int64_t(d.out_h) * ((strip + 3) & ~3);
}

#undef TESSERA_MVE_DW_LOOP
#undef TESSERA_MVE_DW_SETUP_WIDE
#undef TESSERA_MVE_DW_SETUP_NARROW
#undef TESSERA_MVE_DW_SETUP_RAW
#undef TESSERA_MVE_DW_BODY_RAW
#undef TESSERA_MVE_DW_BODY_NARROW
#undef TESSERA_MVE_DW_BODY_FAST
#undef TESSERA_MVE_DW_BODY_HIGH
#undef TESSERA_MVE_DW_BODY_WIDE
#undef TESSERA_MVE_DW_BODY_GENERAL
#undef TESSERA_MVE_DW_PATHS

}  // namespace detail

namespace detail {
/// depthwise_chw's body for windows that fit the CHW scheme, the plane's orientation given
/// (`swap`: exchanged), shared by every compile-time choice of it.
template <class TIn, class TOut>
[[gnu::noinline]] void depthwise_chw_planes(const reference::conv2d_dims& d, const TIn* in, const std::int8_t* w,
                                            const std::int32_t* bias, const requant_params& rq, TOut* out,
                                            void* scratch, bool swap) {
  if (d.out_h <= 0 || d.out_c <= 0) return;  // the row loops below run at least once
  const auto layout = depthwise_chw_scratch(d);
  auto* table = layout.part<std::int32_t>(scratch, 0);
  auto* plane = layout.part<std::int8_t>(scratch, 1);
  auto* sums = layout.part<std::int32_t>(scratch, 2);
  auto* blk = layout.part<std::uint8_t>(scratch, 3);
  const int channels = d.out_c;
  const int taps = d.kernel_h * d.kernel_w;
  const std::int64_t acc_bound = s8_weights_bound(w, channels, taps);
  const requant_plan plan =
      std::is_signed_v<TIn> ? plan_requant(rq, channels, bias, no_correction{}, acc_bound, table)
                            : plan_requant(rq, channels, bias, weight_sum_correction{w, taps}, acc_bound, table);
  // The plane's geometry g: the layer's, or with rows and columns exchanged (see
  // depthwise_chw_transposes); the input's steps along a plane row's elements and between rows.
  const reference::conv2d_dims g = swap ? detail::transposed(d) : d;
  const std::ptrdiff_t in_pitch = std::ptrdiff_t(d.in_w) * channels;
  const int elem_step = static_cast<int>(swap ? in_pitch : channels);
  const int row_step = static_cast<int>(swap ? channels : in_pitch);
  const int pitch = depthwise_chw_pitch(g);
  const int strip = depthwise_chw_strip_width(g);
  const int chunk_rows = depthwise_chw_chunk_rows(g), chunks = depthwise_chw_chunks(g);
  // Per chunk: the gather offsets of 4 neighbouring windows from the chunk's first kernel row
  // (taps past the chunk's last read the corner, with weight 0), then 16 bytes of weights.
  // Exchanged, a chunk's weights come by a gather through `order` (g's tap t is the layer's
  // tap (t % g.kernel_w, t / g.kernel_w)), zero past the chunk's last tap.
  uint8x16_t order[2];
  for (int ch = 0; ch < chunks; ++ch) {
    std::uint8_t* b = blk + 80 * ch;
    const int rows_here = g.kernel_h - ch * chunk_rows < chunk_rows ? g.kernel_h - ch * chunk_rows : chunk_rows;
    const int taps_here = rows_here * g.kernel_w;
    for (int v = 0; v < 4; ++v)
      for (int t = 0; t < 16; ++t)
        b[v * 16 + t] = static_cast<std::uint8_t>(
            (t < taps_here ? (t / g.kernel_w) * g.dilation_h * pitch + (t % g.kernel_w) * g.dilation_w : 0) +
            v * g.stride_w);
    arch::mve::fill_bytes(b + 64, 0, 16);
    if (swap) {
      alignas(16) std::uint8_t index[16] = {};
      for (int t = 0; t < taps_here; ++t) {
        const int gt = ch * chunk_rows * g.kernel_w + t;
        index[t] = static_cast<std::uint8_t>((gt % g.kernel_w) * d.kernel_w + gt / g.kernel_w);
      }
      order[ch] = vldrbq_u8(index);
    }
  }
  const int rows = depthwise_chw_rows(g);
  const int y0 = g.pad_top;
  const int in_rows = g.in_h < rows - y0 ? g.in_h : rows - y0;  // input rows the plane holds
  const int pixels = d.out_h * d.out_w;
  const int chunk_step = chunk_rows * g.dilation_h * pitch;  // plane bytes between chunks
  for (int b = 0; b < d.batch; ++b) {
    const TIn* in_b = in + std::ptrdiff_t(b) * d.in_h * in_pitch;
    TOut* out_b = out + std::ptrdiff_t(b) * pixels * channels;
    for (int ox0 = 0; ox0 < g.out_w; ox0 += strip) {
      const int width = g.out_w - ox0 < strip ? g.out_w - ox0 : strip;
      // The strip's plane column 0 is input column ix0; its inside columns [x_in0, x_in1).
      const int ix0 = ox0 * g.stride_w - g.pad_left;
      const int x_in0 = ix0 < 0 ? -ix0 : 0;
      int x_in1 = g.in_w - ix0 < pitch ? g.in_w - ix0 : pitch;
      if (x_in1 < x_in0) x_in1 = x_in0;
      // One sums row per output row; a whole-width strip of the layer's own geometry keeps them
      // contiguous (one epilogue run).
      const bool whole = !swap && width == d.out_w;
      const int sums_pitch = whole ? width : (width + 3) & ~3;
      // The padding is the same for every channel: fill the plane once per strip, then
      // overwrite the inside per channel.
      arch::mve::fill_bytes(plane, as_s8<TIn>(d.pad_value), static_cast<int>(depthwise_chw_plane_bytes(g)));
      for (int c = 0; c < channels; ++c) {
        if (in_rows > 0 && x_in1 > x_in0)
          detail::gather_plane<!std::is_signed_v<TIn>>(plane + y0 * pitch + x_in0, pitch,
                                                        in_b + std::ptrdiff_t(ix0 + x_in0) * elem_step + c, row_step,
                                                        elem_step, in_rows, x_in1 - x_in0);
        const std::int8_t* wc = w + std::ptrdiff_t(c) * taps;
        for (int ch = 0; ch < chunks; ++ch) {
          const int first = ch * chunk_rows * g.kernel_w;  // the chunk's taps: whole kernel rows
          const int count = taps - first < chunk_rows * g.kernel_w ? taps - first : chunk_rows * g.kernel_w;
          if (swap) vstrbq_s8(reinterpret_cast<std::int8_t*>(blk + 80 * ch + 64),
                              vldrbq_gather_offset_z_s8(wc, order[ch], vctp8q(count)));
          else arch::mve::copy_bytes(blk + 80 * ch + 64, wc + first, count);
          const std::int8_t* base = plane + ch * chunk_step;
          if (ch == 0)
            detail::plane_dot<false>(base, g.stride_h * pitch, g.stride_w, g.out_h, width, blk, sums, sums_pitch);
          else
            detail::plane_dot<true>(base, g.stride_h * pitch, g.stride_w, g.out_h, width, blk + 80 * ch, sums,
                                    sums_pitch);
        }
        if (swap) detail::requant_channel(plan, c, sums, d.out_w, d.out_h, out_b + c, d.out_w * channels, channels);
        else if (whole) detail::requant_channel(plan, c, sums, 1, pixels, out_b + c, channels, 0);
        else
          detail::requant_channel(plan, c, sums, d.out_h, width, out_b + std::ptrdiff_t(ox0) * channels + c, channels,
                                  d.out_w * channels);
      }
    }
  }
}
}  // namespace detail

/// Depthwise convolution (groups == in_c == out_c), NHWC, reference::conv2d's contract, bit-exact.
/// Shapes whose window does not fit the CHW scheme (depthwise_chw_window_fits) run
/// depthwise_hwc, with the HWC kernel's scratch (which the traits reserve for them).
///
/// - `in`: [batch][in_h][in_w][C] int8 or uint8; `w`: [C][kernel_h][kernel_w] int8.
/// - `bias`: [C] int32 or null; `rq`: disabled, per tensor or per channel.
/// - `out`: [batch][out_h][out_w][C]; `scratch`: depthwise_chw_scratch(d).total bytes.
/// - `ReadsPadValue`: passed on to the depthwise_hwc fallback (concepts.hpp); the plane's
///   padding is one fill with the pad value's byte either way.
/// - `Geometry`: the plane's orientation when the caller chose it at compile time (a whole
///   layer whose windows fit: depthwise_chw_transposes of its dims), else per_call and chosen
///   here (windows that do not fit run depthwise_hwc).
/// (Out of line, so that a firmware's symbols show which padding variant it carries:
/// qemu/bench/kws_zero_pad_code.)
template <bool ReadsPadValue = true, plane_geometry Geometry = plane_geometry::per_call, class TIn, class TOut>
[[gnu::noinline]] void depthwise_chw(const reference::conv2d_dims& d, const TIn* in, const std::int8_t* w,
                                     const std::int32_t* bias, const requant_params& rq, TOut* out, void* scratch) {
  if constexpr (Geometry == plane_geometry::per_call) {
    if (!depthwise_chw_window_fits(d)) depthwise_hwc<ReadsPadValue>(d, in, w, bias, rq, out, scratch);
    else detail::depthwise_chw_planes(d, in, w, bias, rq, out, scratch, detail::depthwise_chw_transposes(d));
  } else {  // chosen at compile time for windows that fit (kernels.hpp: layer_choices)
    detail::depthwise_chw_planes(d, in, w, bias, rq, out, scratch, Geometry == plane_geometry::exchanged);
  }
}

}  // namespace tessera::kernels::arm_mve
