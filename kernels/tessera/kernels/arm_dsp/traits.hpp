// Traits of the arm_dsp family (Cortex-M4/M7 DSP extension): what its kernels take, compute at
// once and need as scratch. Plain constexpr code, so it compiles on every host: an x86 build
// plans a Cortex-M schedule with these sizes. The kernels are in this folder (kernels.hpp).
//
// Every scratch layout below is carved by algorithm/scratch.hpp with 7 bytes of slack, because
// the kernels align the scratch pointer they are given to 8 bytes (LDRD/LDM need word
// alignment, and the caller's buffer may be an arbitrary offset into an L1 arena); the traits
// report its total and the kernels take their parts from the same layout.
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

namespace tessera::kernels::arm_dsp {

/// Output pixels per conv micro-kernel step (one output channel at a time, 4 accumulators).
inline constexpr int tile_pixels = 4;
/// Channels per step of the HWC depthwise kernel (one 32-bit load of int8 channels).
inline constexpr int channel_lanes = 4;
/// The scratch start is aligned to 8 bytes, its parts to words.
inline constexpr scratch_alignment scratch_align{8, 4};

constexpr std::size_t round_up(std::size_t x, std::size_t m) { return (x + m - 1) / m * m; }

using kernels::is_8bit_int;  // common/micro_tile.hpp
using kernels::is_output_int;

/// The epilogue's per-channel table (one 12-byte entry per channel: multiplier and 64-bit
/// offset of the division-free requantization, epilogue.hpp).
constexpr std::size_t epilogue_table_bytes(int channels) { return 12 * std::size_t(channels > 0 ? channels : 1); }

/// Groups of 4 reduction elements of a convolution (the micro-kernel's k-step).
constexpr std::size_t conv2d_groups(const reference::conv2d_dims& d) {
  return (std::size_t(d.kernel_h) * d.kernel_w * (d.in_c / (d.groups > 0 ? d.groups : 1)) + 3) / 4;
}

/// Largest weight cache of conv2d: when all out_c rows of expanded weights (8 bytes per group)
/// fit, the kernel runs the 2 channels x 4 pixels micro-kernel from them (17.5 instead of 22
/// estimated Cortex-M4 cycles per 16 MACs). A whole layer gets them computed at compile time
/// into flash (flash_constants.hpp: 2 bytes per weight in place of the 8-bit weights); a tile
/// expands them into its L1 scratch once per filter block. The user states the budget per
/// layer with TESSERA_ARM_DSP_WEIGHT_CACHE_BYTES (default 12 KiB; 0 turns the cache off; the
/// same value in every translation unit of a program). docs/benchmarks.md shows the
/// keyword-spotting flash, RAM and cycles at 0, the default and a larger budget.
#ifndef TESSERA_ARM_DSP_WEIGHT_CACHE_BYTES
#define TESSERA_ARM_DSP_WEIGHT_CACHE_BYTES (12 * 1024)
#endif
inline constexpr std::size_t conv2d_weight_cache_limit = TESSERA_ARM_DSP_WEIGHT_CACHE_BYTES;
constexpr std::size_t conv2d_weight_cache_bytes(const reference::conv2d_dims& d) {
  const std::size_t bytes = std::size_t(d.out_c) * conv2d_groups(d) * 8;
  return bytes <= conv2d_weight_cache_limit ? bytes : 0;
}

/// conv2d (standard and pointwise): an im2col block of `tile_pixels` pixels expanded to int16
/// (8 bytes per pixel and group of 4) | a byte staging row for reduction rows that do not split
/// into whole words | the block's int32 accumulators | the epilogue table | the weight cache.
/// Example: 3x3x16 -> 16 channels: 4*36*8 + 144 + 4*16*4 + 16*12 + 16*36*8 + 7 = 6359 bytes.
/// `flash`: the table and the cache are compile-time constants in flash (flash_constants.hpp,
/// a layer whose weights are template arguments), so those parts are empty: 1559 bytes above.
constexpr auto conv2d_scratch(const reference::conv2d_dims& d, bool flash = false) {
  const std::size_t g = conv2d_groups(d);
  return carve(scratch_align, tile_pixels * g * 8, g * 4, tile_pixels * std::size_t(d.out_c) * 4,
               flash ? 0 : epilogue_table_bytes(d.out_c), flash ? 0 : conv2d_weight_cache_bytes(d));
}

/// The scratch of conv2d_im2col for `d` or for any block of fewer output channels, which is what
/// a tile's L1 must hold: a layer split into channel blocks runs its last block narrower, and the
/// weight cache is kept within its budget, so a narrower block may carry a cache that `d` does
/// not (conv2d_weight_cache_bytes is not monotone in out_c). Planned from `d` alone, such a last
/// block wrote up to the budget past its scratch (the torch MobileNetV1-0.25 through 32 kB on the
/// Cortex-M4: 106-channel blocks without the cache, a 44-channel last block with 11,264 bytes of
/// it, into the C library's data behind L1). Every other part grows with out_c, so the largest
/// is at `d` or at the widest block whose cache fits.
constexpr std::size_t conv2d_blocks_scratch_bytes(const reference::conv2d_dims& d) {
  std::size_t most = conv2d_scratch(d).total;
  const std::size_t per_channel = conv2d_groups(d) * 8;
  if (conv2d_weight_cache_bytes(d) == 0 && per_channel > 0) {
    reference::conv2d_dims narrower = d;
    const std::size_t fitting = conv2d_weight_cache_limit / per_channel;
    narrower.out_c = fitting < std::size_t(d.out_c) ? static_cast<int>(fitting) : d.out_c;
    if (narrower.out_c > 0) {
      const std::size_t with_cache = conv2d_scratch(narrower).total;
      most = with_cache > most ? with_cache : most;
    }
  }
  return most;
}

/// Filter taps of a depthwise kernel and tap pairs (one SMLAD multiplies two taps of a channel).
constexpr std::size_t depthwise_taps(const reference::conv2d_dims& d) { return std::size_t(d.kernel_h) * d.kernel_w; }
constexpr std::size_t depthwise_tap_pairs(const reference::conv2d_dims& d) { return (depthwise_taps(d) + 1) / 2; }

/// Channels of one pixel the HWC depthwise kernel accumulates before requantizing them: its
/// accumulators are a chunk, not the pixel (64 bytes instead of 4 per channel), so that its
/// scratch stays small enough for a RAM budget at the activations' peak (issue 15: the
/// keyword-spotting DS-CNN within CMSIS-NN's 16,256 bytes). A chunk costs one call of the asm
/// group loop: about 30 instructions per 16 channels and pixel (~0.05 per MAC at 3x3).
inline constexpr int hwc_chunk_channels = 16;

/// depthwise_hwc: int16 weights paired by taps ([group][pair][4 channels] words) | a row of
/// channels holding the pad value (what taps in the padding read) | one input pointer per tap
/// and the pad tap (4 bytes each on the target) | one chunk's accumulators | the epilogue table.
/// Example: 3x3, 64 channels: 5*64*4 + 64 + 10*4 + 16*4 + 64*12 + 7 = 2223 bytes; with `flash`
/// (the weight pairs and the table compile-time constants) 64 + 10*4 + 16*4 + 7 = 175.
constexpr auto depthwise_hwc_scratch(const reference::conv2d_dims& d, bool flash = false) {
  const std::size_t c4 = round_up(std::size_t(d.in_c), channel_lanes);
  const std::size_t chunk = c4 < std::size_t{hwc_chunk_channels} ? c4 : std::size_t{hwc_chunk_channels};
  return carve(scratch_align, flash ? 0 : depthwise_tap_pairs(d) * c4 * 4, c4, 2 * depthwise_tap_pairs(d) * 4,
               chunk * 4, flash ? 0 : epilogue_table_bytes(d.out_c));
}

/// The padded one-channel plane of the CHW variant: rows and row pitch in int16. Rows cover
/// every input row a tap reaches (padding included); the pitch also covers the halfwords the
/// two-outputs-per-step loops read past the last output, and is even so rows stay word aligned.
///
/// A transposed plane (x as rows, y along them) serves maps taller than wide: the row kernel's
/// cost is a fixed part per row plus a part per output pair, so the keyword-spotting DS-CNN's
/// 25x5 maps take 5 rows of 13 pairs instead of 25 rows of 3 (the last one half used): 29%
/// fewer estimated cycles. It needs the 3x3 row kernel's conditions with the strides swapped,
/// and the kernel's direct 8-bit store (depthwise_chw decides at run time; the scratch holds
/// either orientation).
struct chw_plane_shape {
  int rows;
  int pitch;
};
constexpr bool depthwise_chw_row_kernel(const reference::conv2d_dims& d) {
  return d.kernel_h == 3 && d.kernel_w == 3 && d.dilation_h == 1 && d.dilation_w == 1 &&
         (d.stride_w == 1 || d.stride_w == 2);
}
constexpr bool depthwise_chw_may_transpose(const reference::conv2d_dims& d) {
  return d.kernel_h == 3 && d.kernel_w == 3 && d.dilation_h == 1 && d.dilation_w == 1 &&
         (d.stride_h == 1 || d.stride_h == 2) && d.out_h > d.out_w;
}
/// Rows along `across` outputs (stride, kernel, dilation of that axis), pitch along `along`.
constexpr chw_plane_shape chw_plane(int across, int stride_across, int kernel_across, int dilation_across, int along,
                                    int stride_along, int kernel_along, int dilation_along) {
  const int rows = window::span(across, stride_across, kernel_across, dilation_across);
  const int cols = window::span(along, stride_along, kernel_along, dilation_along);
  const int even_out = (along + 1) / 2 * 2;
  const int stepped = stride_along * even_out + 2;
  return {rows, static_cast<int>(round_up(std::size_t(cols > stepped ? cols : stepped), 2))};
}
constexpr chw_plane_shape depthwise_chw_plane(const reference::conv2d_dims& d, bool transposed) {
  return transposed ? chw_plane(d.out_w, d.stride_w, d.kernel_w, d.dilation_w, d.out_h, d.stride_h, d.kernel_h,
                                d.dilation_h)
                    : chw_plane(d.out_h, d.stride_h, d.kernel_h, d.dilation_h, d.out_w, d.stride_w, d.kernel_w,
                                d.dilation_w);
}
/// int16 elements of one plane: the larger orientation the kernel may choose.
constexpr std::size_t depthwise_chw_plane_elems(const reference::conv2d_dims& d) {
  const chw_plane_shape n = depthwise_chw_plane(d, false);
  const std::size_t normal = std::size_t(n.rows) * n.pitch;
  if (!depthwise_chw_may_transpose(d)) return normal;
  const chw_plane_shape t = depthwise_chw_plane(d, true);
  const std::size_t transposed = std::size_t(t.rows) * t.pitch;
  return normal > transposed ? normal : transposed;
}

/// Planes the CHW variant fills at once: four channels from one word per pixel (one for fewer
/// than 4 channels).
constexpr int depthwise_chw_planes(const reference::conv2d_dims& d) { return d.in_c >= 4 ? 4 : 1; }

/// depthwise_chw: the epilogue table (first: its offset does not depend on the map, so the tiles
/// of a layer can keep it) | the padded int16 planes | one channel's weights and requantization
/// (64 bytes) | a row of accumulators (even length) | the int16 taps of other filters.
/// Example: 3x3 stride 1 pad 1, 24x24, 64 channels: 64*12 + 4*26*26*2 + 64 + 24*4 + 10*2 + 7
/// = 6363 bytes; with `flash` (the table a compile-time constant) 5595.
constexpr auto depthwise_chw_scratch(const reference::conv2d_dims& d, bool flash = false) {
  const std::size_t planes = std::size_t(depthwise_chw_planes(d)) * depthwise_chw_plane_elems(d) * 2;
  return carve(scratch_align, flash ? 0 : epilogue_table_bytes(d.out_c), planes, 64,
               round_up(std::size_t(d.out_w), 2) * 4, round_up(depthwise_taps(d), 2) * 2);
}

/// Whether the CHW variant is faster than the HWC one, from cost models fitted by least squares
/// to 538 measured 3x3 layers (guest instructions under QEMU, Cortex-M4, -O2; 4 to 96 channels,
/// 1 to 24 columns, 1 to 25 rows, strides 1 and 2), in half instructions:
///   HWC  pixels * (700 + 57 C) + 246 C                   (per pixel: tap table, C/4 groups, epilogue)
///   CHW  C * (270 + 80 rows + k rows ceil(cols/2) + in_h in_w) + 2132,  k = 64 (stride 1), 89 (2)
///                                                        (per channel: plane fill, rows of output pairs)
/// Picking the cheaper model's variant costs 0.03% over always picking the measured faster one
/// (a threshold on the row length cost 1.8%). Example: 64 channels, 25x5 outputs, stride 1
/// (keyword spotting's DS-CNN): CHW 3.25, HWC 3.88 instructions per MAC. The CHW row kernel
/// exists for 3x3 filters without dilation at horizontal stride 1 or 2; other filters always
/// take the HWC kernel. The fit predates the row kernel's four outputs per step, which cut its
/// estimated cycles by about a quarter for 3.5% more instructions: the choice is still by
/// instructions and so leans towards HWC where CHW is now the faster in cycles (a refit on
/// cycles is open).
constexpr std::int64_t depthwise_hwc_cost_x2(const reference::conv2d_dims& d) {
  const std::int64_t pixels = std::int64_t{d.out_h} * d.out_w, c = d.in_c;
  return pixels * (700 + 57 * c) + 246 * c;
}
constexpr std::int64_t depthwise_chw_cost_x2(const reference::conv2d_dims& d) {
  const std::int64_t rows = d.out_h, pairs = (d.out_w + 1) / 2, c = d.in_c;
  const std::int64_t k = d.stride_w == 1 ? 64 : 89;
  return c * (270 + 80 * rows + k * rows * pairs + std::int64_t{d.in_h} * d.in_w) + 2132;
}
constexpr bool depthwise_prefers_chw(const reference::conv2d_dims& d) {
  return depthwise_chw_row_kernel(d) && depthwise_chw_cost_x2(d) < depthwise_hwc_cost_x2(d);
}

/// Rows of A a matrix product expands at once: a block of `tile_pixels` when m >= 4, else one.
constexpr std::size_t product_rows(int m) { return m >= tile_pixels ? tile_pixels : 1; }

/// gemm: rows of A expanded to int16 | their accumulators | the epilogue table (per column, or
/// per row; empty with `flash`: a whole layer's table is a compile-time constant).
constexpr auto gemm_scratch(const reference::gemm_dims& d, bool flash = false) {
  const std::size_t g = (std::size_t(d.k) + 3) / 4;
  const int rq_len = d.n > d.m ? d.n : d.m;
  return carve(scratch_align, product_rows(d.m) * g * 8, product_rows(d.m) * std::size_t(d.n) * 4,
               flash ? 0 : epilogue_table_bytes(rq_len));
}

/// matmul: B transposed to [n][k] (8-bit, rows padded to whole words) | what gemm needs.
constexpr auto matmul_scratch(const reference::matmul_dims& d) {
  const std::size_t g = (std::size_t(d.k) + 3) / 4;
  return carve(scratch_align, std::size_t(d.n) * g * 4, product_rows(d.m) * g * 8,
               product_rows(d.m) * std::size_t(d.n) * 4, epilogue_table_bytes(d.n));
}

/// Channels the binary kernel sums before requantizing them (one run of its epilogue).
inline constexpr int binary_chunk = 64;

/// binary: one chunk of sums | the epilogue table over the last (channel) dimension.
constexpr auto binary_scratch(const reference::binary_dims& d) {
  return carve(scratch_align, binary_chunk * 4,
               epilogue_table_bytes(d.rank > 0 ? d.out[static_cast<std::size_t>(d.rank - 1)] : 1));
}

using kernels::binary_layout_supported;  // common/micro_tile.hpp

}  // namespace tessera::kernels::arm_dsp

namespace tessera::kernels {

template <>
struct family_traits<kernel_family::arm_dsp> {
  /// conv and gemm: one output channel x 4 pixels (rows) per micro-kernel step, SMLAD over
  /// int16 pairs expanded from 4-byte words.
  static constexpr micro_tile conv_tile{1, arm_dsp::tile_pixels, 4};
  /// depthwise: 4 channels (one word) per step, two taps per SMLAD.
  static constexpr micro_tile depthwise_tile{arm_dsp::channel_lanes, 1, 4};
  static constexpr micro_tile gemm_tile{1, arm_dsp::tile_pixels, 4};

  // Requantization: disabled, per tensor or per channel of the output (per row too for gemm).
  // Every such case is exact; the epilogue picks a division-free form per call (epilogue.hpp).

  template <class TIn, class TW, class TOut>
  static constexpr bool conv2d_accepts(const reference::conv2d_dims& d, const requant_params& rq) {
    return arm_dsp::is_8bit_int<TIn> && std::is_same_v<TW, std::int8_t> && arm_dsp::is_output_int<TOut> &&
           d.groups == 1 && is_channelwise(rq, d.out_c);
  }
  static constexpr std::size_t conv2d_scratch_bytes(const reference::conv2d_dims& d) {
    return arm_dsp::conv2d_scratch(d).total;
  }
  // Optional (dispatch.hpp, conv2d_blocks_scratch_bytes): the scratch of a channel block and of
  // every narrower one (a tile's last block), which the weight cache's budget makes larger.
  static constexpr std::size_t conv2d_blocks_scratch_bytes(const reference::conv2d_dims& d) {
    return arm_dsp::conv2d_blocks_scratch_bytes(d);
  }

  template <class TIn, class TW, class TOut>
  static constexpr bool depthwise_accepts(const reference::conv2d_dims& d, const requant_params& rq) {
    return arm_dsp::is_8bit_int<TIn> && std::is_same_v<TW, std::int8_t> && arm_dsp::is_output_int<TOut> &&
           d.groups == d.in_c && d.out_c == d.in_c && is_channelwise(rq, d.out_c);
  }
  static constexpr std::size_t depthwise_hwc_scratch_bytes(const reference::conv2d_dims& d) {
    return arm_dsp::depthwise_hwc_scratch(d).total;
  }
  static constexpr std::size_t depthwise_chw_scratch_bytes(const reference::conv2d_dims& d) {
    return arm_dsp::depthwise_chw_scratch(d).total;
  }
  static constexpr bool depthwise_prefers_chw(const reference::conv2d_dims& d) {
    return arm_dsp::depthwise_prefers_chw(d);
  }
  // Optional (concepts.hpp, conv_flash_scratch): the scratch of a layer whose weights, bias and
  // requantization are template arguments, when the kernels take what they derive from them
  // from flash (flash_constants.hpp) instead of building it per call.
  static constexpr std::size_t conv2d_flash_scratch_bytes(const reference::conv2d_dims& d) {
    return arm_dsp::conv2d_scratch(d, true).total;
  }
  // Optional (dispatch.hpp, conv2d_layer_in_place): which whole-layer kernels may write their
  // output over their input (the op checks the element sizes). A 1x1 convolution without
  // padding reads each block of 4 output pixels' inputs into its im2col block before it stores
  // them (algorithm/conv2d.hpp: pack, then compute), and an output pixel's input pixel never
  // comes before it. The CHW depthwise kernel copies a channel (four at a time) of the whole map
  // into its planes before it stores that channel's outputs, and an output stores only its own
  // channel's bytes: consumed ones. So the keyword-spotting DS-CNN needs one 8,000-byte map at
  // its depthwise and pointwise steps, not two (planning/ram_budget.hpp).
  static constexpr bool conv2d_writes_in_place(conv_variant v, const reference::conv2d_dims& d) {
    if (v == conv_variant::depthwise_chw) return true;
    return v == conv_variant::im2col && d.kernel_h == 1 && d.kernel_w == 1 && d.groups == 1 && d.pad_top == 0 &&
           d.pad_left == 0 && d.out_h <= d.in_h && d.out_w <= d.in_w;
  }
  static constexpr std::size_t depthwise_hwc_flash_scratch_bytes(const reference::conv2d_dims& d) {
    return arm_dsp::depthwise_hwc_scratch(d, true).total;
  }
  static constexpr std::size_t depthwise_chw_flash_scratch_bytes(const reference::conv2d_dims& d) {
    return arm_dsp::depthwise_chw_scratch(d, true).total;
  }

  template <class TA, class TW, class TOut>
  static constexpr bool gemm_accepts(const reference::gemm_dims& d, const requant_params& rq) {
    return arm_dsp::is_8bit_int<TA> && std::is_same_v<TW, std::int8_t> && arm_dsp::is_output_int<TOut> &&
           (is_channelwise(rq, d.n) || is_rowwise(rq, d.m, d.n));
  }
  static constexpr std::size_t gemm_scratch_bytes(const reference::gemm_dims& d) {
    return arm_dsp::gemm_scratch(d).total;
  }
  static constexpr std::size_t gemm_flash_scratch_bytes(const reference::gemm_dims& d) {
    return arm_dsp::gemm_scratch(d, true).total;
  }

  template <class TA, class TB, class TOut>
  static constexpr bool matmul_accepts(const reference::matmul_dims& d, const requant_params& rq) {
    return arm_dsp::is_8bit_int<TA> && arm_dsp::is_8bit_int<TB> && arm_dsp::is_output_int<TOut> &&
           is_channelwise(rq, d.n);
  }
  static constexpr std::size_t matmul_scratch_bytes(const reference::matmul_dims& d) {
    return arm_dsp::matmul_scratch(d).total;
  }

  template <class TA, class TB, class TOut>
  static constexpr bool binary_accepts(reference::binary_op op, const reference::binary_dims& d,
                                       const requant_params& rq) {
    return reference::is_plain_add_sub(op, d) && arm_dsp::is_8bit_int<TA> && arm_dsp::is_8bit_int<TB> &&
           arm_dsp::is_output_int<TOut> && arm_dsp::binary_layout_supported(d) && d.rank >= 1 &&
           is_channelwise(rq, d.out[static_cast<std::size_t>(d.rank - 1)]);
  }
  static constexpr std::size_t binary_scratch_bytes(const reference::binary_dims& d) {
    return arm_dsp::binary_scratch(d).total;
  }

  template <class T>
  static constexpr bool max_pool_accepts(const reference::pool2d_dims&) { return arm_dsp::is_8bit_int<T>; }
  template <class T>
  static constexpr bool average_pool_accepts(const reference::pool2d_dims&, bool) { return arm_dsp::is_8bit_int<T>; }
  static constexpr std::size_t max_pool2d_scratch_bytes(const reference::pool2d_dims&) { return 0; }
  static constexpr std::size_t average_pool2d_scratch_bytes(const reference::pool2d_dims&) { return 0; }
};

}  // namespace tessera::kernels

static_assert(tessera::kernels::family_traits_complete<tessera::kernels::family_traits<tessera::kernels::kernel_family::arm_dsp>>,
              "family_traits<arm_dsp> lacks a member every family declares (kernels/concepts.hpp)");
