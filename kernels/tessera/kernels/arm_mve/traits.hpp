// Traits of the arm_mve family (Cortex-M55/M85 Helium): what its kernels take, compute at once
// and need as scratch. Plain constexpr code that compiles on every host, so an x86 build plans
// a Cortex-M55 schedule with these sizes; the kernels themselves are in this folder
// (kernels.hpp) and need arm_mve.h.
//
// Every scratch size includes 15 bytes of slack: the kernels align the pointer they are given
// to 16 bytes (the caller's buffer may be any offset into an L1 arena).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <tessera/core/window.hpp>
#include <tessera/kernels/algorithm/scratch.hpp>
#include <tessera/kernels/common/micro_tile.hpp>
#include <tessera/kernels/concepts.hpp>
#include <tessera/kernels/conv_variant.hpp>
#include <tessera/kernels/common/requant_epilogue.hpp>
#include <tessera/kernels/reference/traits.hpp>

namespace tessera::kernels::arm_mve {

/// int8 lanes of one MVE vector (VMLADAVA multiplies and sums 16 pairs per instruction).
inline constexpr int lanes = 16;
/// The convolution micro-kernel: 3 rows (pixels) x 2 columns (output channels), 6 accumulators
/// in even core registers (VMLADAVA's accumulator must be even; lr counts the loop).
inline constexpr int tile_rows = 3;
inline constexpr int tile_cols = 2;
/// The single-row micro-kernel (Gemm with one activation row): 1 row x 4 columns.
inline constexpr int row_tile_cols = 4;

constexpr std::size_t round_up(std::size_t x, std::size_t m) { return (x + m - 1) / m * m; }
constexpr std::size_t at_least_1(int x) { return x > 0 ? std::size_t(x) : 1; }

using kernels::is_8bit_int;  // common/micro_tile.hpp
using kernels::is_output_int;

/// The requantization table: 48 bytes per group of 4 channels (requant_table.hpp).
constexpr std::size_t requant_table_bytes(int channels) { return (at_least_1(channels) + 3) / 4 * 48; }

/// Accumulators of one block of `tile_rows` rows, each row padded to a multiple of 4
/// columns (both micro-kernels store whole column tiles).
constexpr std::size_t block_acc_bytes(int cols) { return tile_rows * round_up(at_least_1(cols), 4) * 4; }

/// Scratch starts and parts are aligned to 16 bytes (one vector), carved by algorithm/scratch.hpp.
inline constexpr scratch_alignment scratch_align{16, 16};

/// conv2d: requantization table | block accumulators | im2col rows (tile_rows x K bytes; uint8
/// inputs go through them even for 1x1 kernels, as x - 128).
/// Example: 3x3x16 -> 16: 192 + 192 + 432 + 15 = 831 bytes.
constexpr std::size_t conv2d_reduction(const reference::conv2d_dims& d) {
  return std::size_t(d.kernel_h) * d.kernel_w * (d.in_c / (d.groups > 0 ? d.groups : 1));
}
constexpr auto conv2d_scratch(const reference::conv2d_dims& d) {
  return carve(scratch_align, requant_table_bytes(d.out_c), block_acc_bytes(d.out_c), tile_rows * conv2d_reduction(d));
}

/// depthwise_hwc: table | weights as int16 [tap][channel] (channels padded to 8) | one pixel's
/// accumulators (channels padded to 8, int32).
constexpr std::size_t depthwise_taps(const reference::conv2d_dims& d) { return std::size_t(d.kernel_h) * d.kernel_w; }
constexpr auto depthwise_hwc_scratch(const reference::conv2d_dims& d) {
  const std::size_t c8 = round_up(at_least_1(d.out_c), 8);
  return carve(scratch_align, requant_table_bytes(d.out_c), depthwise_taps(d) * c8 * 2, c8 * 4);
}

/// depthwise_chw (DORY's variant): table | one channel's input plane, padded, in CHW order |
/// the channel's int32 sums | per chunk of taps, 4 gather offset vectors and the channel's
/// weights (80 bytes). Taps go in chunks of whole kernel rows, up to 16 taps (one vector) each.
/// The output is computed in vertical strips of `depthwise_chw_strip_width` columns, narrow
/// enough for a chunk's window offsets, 3 pixels ahead, to fit the 8-bit gather offsets; the
/// plane covers one strip (every row a tap reaches, every column of the strip's windows).
/// Kernels wider than 16 taps run the HWC algorithm (see depthwise_chw.hpp) with its scratch
/// (family_traits::depthwise_chw_scratch_bytes reserves that one); this layout is only valid
/// when depthwise_chw_window_fits.
/// Example: 3x3 s1 p1, 24x24x64: 768 + 688 + 2304 + 80 + 15 = 3855 bytes.
/// Kernel rows per chunk of at most 16 taps (0 when one kernel row is wider than 16).
constexpr int depthwise_chw_chunk_rows(const reference::conv2d_dims& d) {
  if (d.kernel_w < 1 || d.kernel_w > lanes) return 0;
  const int rows = lanes / d.kernel_w;
  return rows < d.kernel_h ? rows : d.kernel_h;
}
constexpr int depthwise_chw_chunks(const reference::conv2d_dims& d) {
  const int rows = depthwise_chw_chunk_rows(d);
  return rows > 0 ? (d.kernel_h + rows - 1) / rows : 0;
}
/// Output columns per strip (0 when no strip fits): the widest whose plane pitch p keeps
/// (chunk_rows - 1) * dilation_h * p + (kernel_w - 1) * dilation_w + 3 * stride_w <= 255.
constexpr int depthwise_chw_strip_width(const reference::conv2d_dims& d) {
  const int rows = depthwise_chw_chunk_rows(d);
  if (rows == 0 || d.in_c > 8191 || d.out_w < 1) return 0;  // 8191: 16-bit gather offsets, 8 channels apart
  const int span = (d.kernel_w - 1) * d.dilation_w;  // a window's columns - 1
  const int room = 255 - span - 3 * d.stride_w;      // for (rows - 1) * dilation_h * pitch
  if (room < 0) return 0;
  const int max_pitch = rows > 1 ? room / ((rows - 1) * d.dilation_h) : 1 << 20;
  if (max_pitch < span + 1) return 0;
  const int width = (max_pitch - span - 1) / d.stride_w + 1;
  return width < d.out_w ? width : d.out_w;
}
constexpr bool depthwise_chw_window_fits(const reference::conv2d_dims& d) { return depthwise_chw_strip_width(d) > 0; }
constexpr int depthwise_chw_rows(const reference::conv2d_dims& d) {
  return window::span(d.out_h, d.stride_h, d.kernel_h, d.dilation_h);
}
constexpr int depthwise_chw_pitch(const reference::conv2d_dims& d) {
  return window::span(depthwise_chw_strip_width(d), d.stride_w, d.kernel_w, d.dilation_w);
}
constexpr std::size_t depthwise_chw_plane_bytes(const reference::conv2d_dims& d) {
  return std::size_t(depthwise_chw_rows(d)) * depthwise_chw_pitch(d);
}
constexpr auto depthwise_chw_scratch(const reference::conv2d_dims& d) {
  return carve(scratch_align, requant_table_bytes(d.out_c), depthwise_chw_plane_bytes(d),
               std::size_t(d.out_h) * round_up(std::size_t(depthwise_chw_strip_width(d)), 4) * 4,
               80 * std::size_t(depthwise_chw_chunks(d)));
}

/// gemm: table | block accumulators | tile_rows activation rows as int8 (uint8 inputs only).
constexpr auto gemm_scratch(const reference::gemm_dims& d) {
  return carve(scratch_align, requant_table_bytes(d.n), block_acc_bytes(d.n), tile_rows * at_least_1(d.k));
}

/// matmul: table | block accumulators | B transposed to [n][k] int8 | tile_rows rows of A as int8.
constexpr auto matmul_scratch(const reference::matmul_dims& d) {
  return carve(scratch_align, requant_table_bytes(d.n), block_acc_bytes(d.n), at_least_1(d.n) * at_least_1(d.k),
               tile_rows * at_least_1(d.k));
}

/// binary: table | one row of int32 results (the innermost axis).
constexpr int binary_channels(const reference::binary_dims& d) {
  return d.rank >= 1 ? d.out[std::size_t(d.rank - 1)] : 1;
}
constexpr auto binary_scratch(const reference::binary_dims& d) {
  return carve(scratch_align, requant_table_bytes(binary_channels(d)), round_up(at_least_1(binary_channels(d)), 4) * 4);
}

using kernels::binary_layout_supported;  // common/micro_tile.hpp

/// Which depthwise variant is faster for these dims (QEMU mps3-an547 instruction counts, see
/// depthwise_chw.hpp): the CHW variant whenever its windows fit, since it spends one gather and
/// one VMLADAVA per output and chunk of up to 16 taps where the HWC variant spends about 9
/// instructions per tap and 8 channels.
constexpr bool depthwise_prefers_chw(const reference::conv2d_dims& d) { return depthwise_chw_window_fits(d); }

}  // namespace tessera::kernels::arm_mve

namespace tessera::kernels {

template <>
struct family_traits<kernel_family::arm_mve> {
  /// conv and gemm: 2 output channels x 3 pixels (rows) per step, 16 int8 lanes (VMLADAVA).
  static constexpr micro_tile conv_tile{arm_mve::tile_cols, arm_mve::tile_rows, arm_mve::lanes};
  /// depthwise (CHW): one channel, 4 output pixels per epilogue step, one window per vector.
  static constexpr micro_tile depthwise_tile{1, 4, arm_mve::lanes};
  static constexpr micro_tile gemm_tile{arm_mve::tile_cols, arm_mve::tile_rows, arm_mve::lanes};

  // Requantization: disabled, per tensor or per output channel (per row too for gemm), all
  // shifts and parameters exactly (requant.hpp picks a path per call).

  template <class TIn, class TW, class TOut>
  static constexpr bool conv2d_accepts(const reference::conv2d_dims& d, const requant_params& rq) {
    return arm_mve::is_8bit_int<TIn> && std::is_same_v<TW, std::int8_t> && arm_mve::is_output_int<TOut> &&
           d.groups == 1 && is_channelwise(rq, d.out_c);
  }
  static constexpr std::size_t conv2d_scratch_bytes(const reference::conv2d_dims& d) {
    return arm_mve::conv2d_scratch(d).total;
  }

  template <class TIn, class TW, class TOut>
  static constexpr bool depthwise_accepts(const reference::conv2d_dims& d, const requant_params& rq) {
    return arm_mve::is_8bit_int<TIn> && std::is_same_v<TW, std::int8_t> && arm_mve::is_output_int<TOut> &&
           d.groups == d.in_c && d.out_c == d.in_c && is_channelwise(rq, d.out_c);
  }
  static constexpr std::size_t depthwise_hwc_scratch_bytes(const reference::conv2d_dims& d) {
    return arm_mve::depthwise_hwc_scratch(d).total;
  }
  static constexpr std::size_t depthwise_chw_scratch_bytes(const reference::conv2d_dims& d) {
    // Windows that do not fit the CHW scheme run the HWC kernel (depthwise_chw.hpp).
    return arm_mve::depthwise_chw_window_fits(d) ? arm_mve::depthwise_chw_scratch(d).total
                                                 : arm_mve::depthwise_hwc_scratch(d).total;
  }
  // Optional (dispatch.hpp, conv2d_layer_in_place): which whole-layer kernels may write their
  // output over their input (the op checks the element sizes). A 1x1 convolution without
  // padding multiplies a block of 3 pixels (read in place, or copied by its im2col) into
  // accumulators for every output channel before it stores them, and an output pixel's input
  // pixel never comes before it. The CHW depthwise kernel gathers one channel of the whole map
  // into its plane before it stores that channel, when one strip spans the output's width
  // (several strips would gather columns an earlier strip has overwritten); windows the CHW
  // scheme does not fit run the HWC kernel, which is not in place.
  static constexpr bool conv2d_writes_in_place(conv_variant v, const reference::conv2d_dims& d) {
    if (v == conv_variant::depthwise_chw)
      return arm_mve::depthwise_chw_window_fits(d) && arm_mve::depthwise_chw_strip_width(d) >= d.out_w;
    return v == conv_variant::im2col && d.kernel_h == 1 && d.kernel_w == 1 && d.groups == 1 && d.pad_top == 0 &&
           d.pad_left == 0 && d.out_h <= d.in_h && d.out_w <= d.in_w;
  }
  static constexpr bool depthwise_prefers_chw(const reference::conv2d_dims& d) {
    return arm_mve::depthwise_prefers_chw(d);
  }

  template <class TA, class TW, class TOut>
  static constexpr bool gemm_accepts(const reference::gemm_dims& d, const requant_params& rq) {
    return arm_mve::is_8bit_int<TA> && std::is_same_v<TW, std::int8_t> && arm_mve::is_output_int<TOut> &&
           (is_channelwise(rq, d.n) || is_rowwise(rq, d.m, d.n));
  }
  static constexpr std::size_t gemm_scratch_bytes(const reference::gemm_dims& d) {
    return arm_mve::gemm_scratch(d).total;
  }

  template <class TA, class TB, class TOut>
  static constexpr bool matmul_accepts(const reference::matmul_dims& d, const requant_params& rq) {
    return arm_mve::is_8bit_int<TA> && arm_mve::is_8bit_int<TB> && arm_mve::is_output_int<TOut> &&
           is_channelwise(rq, d.n);
  }
  static constexpr std::size_t matmul_scratch_bytes(const reference::matmul_dims& d) {
    return arm_mve::matmul_scratch(d).total;
  }

  template <class TA, class TB, class TOut>
  static constexpr bool binary_accepts(reference::binary_op op, const reference::binary_dims& d,
                                       const requant_params& rq) {
    return reference::is_plain_add_sub(op, d) && arm_mve::is_8bit_int<TA> && arm_mve::is_8bit_int<TB> &&
           arm_mve::is_output_int<TOut> && arm_mve::binary_layout_supported(d) &&
           is_channelwise(rq, arm_mve::binary_channels(d));
  }
  static constexpr std::size_t binary_scratch_bytes(const reference::binary_dims& d) {
    return arm_mve::binary_scratch(d).total;
  }

  template <class T>
  static constexpr bool max_pool_accepts(const reference::pool2d_dims&) { return arm_mve::is_8bit_int<T>; }
  template <class T>
  static constexpr bool average_pool_accepts(const reference::pool2d_dims&, bool) { return arm_mve::is_8bit_int<T>; }
  static constexpr std::size_t max_pool2d_scratch_bytes(const reference::pool2d_dims&) { return 0; }
  static constexpr std::size_t average_pool2d_scratch_bytes(const reference::pool2d_dims&) { return 0; }
};

}  // namespace tessera::kernels

static_assert(tessera::kernels::family_traits_complete<tessera::kernels::family_traits<tessera::kernels::kernel_family::arm_mve>>,
              "family_traits<arm_mve> lacks a member every family declares (kernels/concepts.hpp)");
