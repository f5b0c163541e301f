// Traits of the x86 family (SSE4.1 baseline, AVX2 paths): what its kernels take, compute at
// once and need as scratch. Plain constexpr code without intrinsics, so it compiles on every
// host; the kernels themselves are in this folder and need SSE4.1 (kernels.hpp).
//
// The scratch sizes do not depend on the ISA: rows are padded to 16 int16 (one AVX2 PMADDWD
// step) and channel blocks to 32, so an SSE4.1 build and an AVX2 build share a plan.
#pragma once

#include <cstddef>
#include <type_traits>

#include <tessera/core/window.hpp>
#include <tessera/kernels/algorithm/scratch.hpp>
#include <tessera/kernels/common/micro_tile.hpp>
#include <tessera/kernels/concepts.hpp>
#include <tessera/kernels/conv_variant.hpp>
#include <tessera/kernels/reference/traits.hpp>

namespace tessera::kernels::x86 {

/// im2col rows are padded with zeros to a multiple of this many int16 (one AVX2 k-step).
inline constexpr int k_pad = 16;
/// Output pixels (im2col rows) per conv micro-tile, output channels per micro-tile.
inline constexpr int tile_pixels = 2;
inline constexpr int tile_channels = 4;
/// Channel blocks of the depthwise kernels and column blocks of the CHW variant are padded to this.
inline constexpr int channel_pad = 32;
inline constexpr int column_pad = 16;
/// The HWC depthwise kernel keeps one input pointer per filter tap on the stack.
inline constexpr int max_depthwise_taps = 64;

constexpr std::size_t round_up(std::size_t x, std::size_t m) { return (x + m - 1) / m * m; }

/// The element types the kernels widen (8-bit inputs and weights) or store (8-, 16- or 32-bit
/// outputs).
using kernels::is_8bit_int;  // common/micro_tile.hpp
using kernels::is_output_int;

/// A 1x1 convolution: each output pixel reads one input pixel (or only padding), so it runs on
/// the input rows directly, without im2col; a pixel in the padding is then the bias alone, so
/// only when the padding reads 0 (else the im2col kernel, whose rows hold the pad value). Only
/// the kernel size and the layer's pad value decide, never padding or extents: the ops size a
/// tile's scratch without its border padding.
constexpr bool conv2d_is_pointwise(const reference::conv2d_dims& d) {
  return d.kernel_h == 1 && d.kernel_w == 1 && d.pad_value == 0;
}

/// The x86 kernels read their scratch with unaligned loads: any start, parts back to back.
inline constexpr scratch_alignment scratch_align{1, 1};

/// The int16 length of one im2col row: kernel_h*kernel_w*in_c padded to `k_pad`.
constexpr int conv2d_row_length(const reference::conv2d_dims& d) {
  const std::size_t k = std::size_t(d.kernel_h) * d.kernel_w * (d.in_c / (d.groups > 0 ? d.groups : 1));
  return static_cast<int>(round_up(k, k_pad));
}

/// conv2d: `tile_pixels` im2col rows; nothing for a pointwise convolution.
/// Example: 3x3x16 -> 2 * 144 * 2 = 576 bytes.
constexpr auto conv2d_scratch(const reference::conv2d_dims& d) {
  return carve(scratch_align, conv2d_is_pointwise(d) ? 0 : tile_pixels * std::size_t(conv2d_row_length(d)) * 2);
}

/// depthwise_hwc: a padding row of channels (the input of taps in the padding: the pad value) |
/// the int16 weights, interleaved by tap pairs: (ceil(taps/2) * 2) * channels int16.
/// Example: 3x3, 64 channels -> 64 + 10 * 64 * 2 = 1344 bytes.
constexpr auto depthwise_hwc_scratch(const reference::conv2d_dims& d) {
  const std::size_t c = round_up(std::size_t(d.in_c), channel_pad);
  const std::size_t taps = std::size_t(d.kernel_h) * d.kernel_w;
  return carve(scratch_align, c, round_up(taps, 2) * c * 2);
}

/// Padded input rows the CHW variant needs, and their int16 length per stride phase (column
/// x*stride + p of the padded row is element x of phase p, so strided taps read contiguously).
constexpr int depthwise_chw_rows(const reference::conv2d_dims& d) {
  return window::span(d.out_h, d.stride_h, d.kernel_h, d.dilation_h);
}
constexpr int depthwise_chw_row_length(const reference::conv2d_dims& d) {
  return static_cast<int>(round_up(std::size_t(d.out_w), column_pad)) + (d.kernel_w - 1) * d.dilation_w / d.stride_w;
}

/// depthwise_chw: one channel's padded plane as int16, split by column phase.
/// Example: 3x3 stride 1 pad 1 on 24x24 -> 26 rows * (32 + 2) * 2 = 1768 bytes.
constexpr auto depthwise_chw_scratch(const reference::conv2d_dims& d) {
  return carve(scratch_align, std::size_t(d.stride_w) * depthwise_chw_rows(d) * depthwise_chw_row_length(d) * 2);
}

/// The HWC variant vectorizes over channels, the CHW variant over output columns. Measured on
/// 3x3 layers (8x8 to 64x64, SSE4.1 and AVX2): with fewer than 8 channels CHW is 5-20x faster
/// (HWC runs partial vectors), with 8-15 channels at stride 1 about 1.2x, from 16 channels or
/// with stride 2 (CHW reorders each plane by column phase) HWC is faster, 1.5-3x.
/// Only channels and stride decide, so every tile of a layer picks the same variant.
constexpr bool depthwise_prefers_chw(const reference::conv2d_dims& d) {
  return d.in_c < 8 || (d.in_c < 16 && d.stride_w == 1);
}

/// matmul: B transposed to [n][k] (same element type) so that each output column is a dot
/// product of two contiguous rows.
constexpr auto matmul_scratch(const reference::matmul_dims& d) { return carve(scratch_align, std::size_t(d.n) * d.k); }

}  // namespace tessera::kernels::x86

namespace tessera::kernels {

template <>
struct family_traits<kernel_family::x86> {
#if defined(__AVX2__)
  static constexpr int lanes = 32;
#else
  static constexpr int lanes = 16;
#endif
  /// conv and gemm: 4 output channels x 2 pixels (rows) per micro-kernel step.
  static constexpr micro_tile conv_tile{x86::tile_channels, x86::tile_pixels, lanes};
  /// depthwise: one vector of channels (8 with SSE4.1, 16 with AVX2) per output pixel.
  static constexpr micro_tile depthwise_tile{lanes / 2, 1, lanes};
  static constexpr micro_tile gemm_tile{x86::tile_channels, x86::tile_pixels, lanes};

  // Every requantization layout is accepted: per tensor, per channel and per row run the
  // vector epilogue, any other layout a scalar `requant_params::apply` per output.

  template <class TIn, class TW, class TOut>
  static constexpr bool conv2d_accepts(const reference::conv2d_dims& d, const requant_params&) {
    return x86::is_8bit_int<TIn> && x86::is_8bit_int<TW> && x86::is_output_int<TOut> && d.groups == 1;
  }
  static constexpr std::size_t conv2d_scratch_bytes(const reference::conv2d_dims& d) {
    return x86::conv2d_scratch(d).total;
  }

  template <class TIn, class TW, class TOut>
  static constexpr bool depthwise_accepts(const reference::conv2d_dims& d, const requant_params&) {
    return x86::is_8bit_int<TIn> && x86::is_8bit_int<TW> && x86::is_output_int<TOut> && d.groups == d.in_c &&
           d.out_c == d.in_c && d.kernel_h * d.kernel_w <= x86::max_depthwise_taps;
  }
  static constexpr std::size_t depthwise_hwc_scratch_bytes(const reference::conv2d_dims& d) {
    return x86::depthwise_hwc_scratch(d).total;
  }
  static constexpr std::size_t depthwise_chw_scratch_bytes(const reference::conv2d_dims& d) {
    return x86::depthwise_chw_scratch(d).total;
  }
  // Optional (dispatch.hpp, conv2d_layer_in_place): the CHW depthwise kernel copies a channel
  // of the whole map into its plane before it stores that channel's outputs, and a store
  // touches only that channel, so it may write its output over its input (the op checks the
  // element sizes). The pointwise kernel stores a block of output channels while later blocks
  // still read the pixel; the HWC kernel stores a pixel its neighbours still read: neither is.
  static constexpr bool conv2d_writes_in_place(conv_variant v, const reference::conv2d_dims&) {
    return v == conv_variant::depthwise_chw;
  }
  static constexpr bool depthwise_prefers_chw(const reference::conv2d_dims& d) { return x86::depthwise_prefers_chw(d); }

  template <class TA, class TW, class TOut>
  static constexpr bool gemm_accepts(const reference::gemm_dims&, const requant_params&) {
    return x86::is_8bit_int<TA> && x86::is_8bit_int<TW> && x86::is_output_int<TOut>;
  }
  static constexpr std::size_t gemm_scratch_bytes(const reference::gemm_dims&) { return 0; }

  template <class TA, class TB, class TOut>
  static constexpr bool matmul_accepts(const reference::matmul_dims&, const requant_params&) {
    return x86::is_8bit_int<TA> && x86::is_8bit_int<TB> && x86::is_output_int<TOut>;
  }
  static constexpr std::size_t matmul_scratch_bytes(const reference::matmul_dims& d) {
    return x86::matmul_scratch(d).total;
  }

  /// Add and Sub without offsets, any layout: rows whose inner stride is 1 (A) and 1 or 0 (B)
  /// run vectorized, others scalar. Mul runs the reference.
  template <class TA, class TB, class TOut>
  static constexpr bool binary_accepts(reference::binary_op op, const reference::binary_dims& d,
                                       const requant_params&) {
    return reference::is_plain_add_sub(op, d) && x86::is_8bit_int<TA> && x86::is_8bit_int<TB> &&
           x86::is_output_int<TOut>;
  }
  static constexpr std::size_t binary_scratch_bytes(const reference::binary_dims&) { return 0; }

  template <class T>
  static constexpr bool max_pool_accepts(const reference::pool2d_dims&) { return x86::is_8bit_int<T>; }
  template <class T>
  static constexpr bool average_pool_accepts(const reference::pool2d_dims&, bool) { return x86::is_8bit_int<T>; }
  static constexpr std::size_t max_pool2d_scratch_bytes(const reference::pool2d_dims&) { return 0; }
  static constexpr std::size_t average_pool2d_scratch_bytes(const reference::pool2d_dims&) { return 0; }
};

}  // namespace tessera::kernels

static_assert(tessera::kernels::family_traits_complete<tessera::kernels::family_traits<tessera::kernels::kernel_family::x86>>,
              "family_traits<x86> lacks a member every family declares (kernels/concepts.hpp)");
