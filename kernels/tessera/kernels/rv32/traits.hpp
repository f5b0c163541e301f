// Traits of the rv32 family (RV32IM, PULP-NN's micro-kernel shape without Xpulp): what its
// kernels take, compute at once and need as scratch. Plain constexpr code, so it compiles on
// every host: an x86 build plans a GAP8 schedule with these micro-tiles. The kernels are in this
// folder (kernels.hpp).
//
// The family needs no scratch: its convolution reads each window's runs in place instead of
// im2col'ing them, MatMul reads B's columns in place, and the requantizing store computes its
// per-channel constants in registers (epilogue.hpp). So every layout below is carve() of
// nothing, and on a cluster every core shares every tile (tiled_executor runs a tile whose
// kernel needs scratch on one core: one scratch area is planned per tile).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <tessera/kernels/algorithm/scratch.hpp>
#include <tessera/kernels/common/micro_tile.hpp>
#include <tessera/kernels/common/requant_epilogue.hpp>
#include <tessera/kernels/concepts.hpp>
#include <tessera/kernels/reference/traits.hpp>

namespace tessera::kernels::rv32 {

/// PULP-NN's micro-tile: 4 output channels x 2 output pixels (Gemm: rows) per inner step.
inline constexpr int tile_channels = 4;
inline constexpr int tile_pixels = 2;
/// Byte loads: no alignment needed anywhere.
inline constexpr scratch_alignment scratch_align{1, 1};

using kernels::is_8bit_int;  // common/micro_tile.hpp
using kernels::is_output_int;

/// conv2d: none (the windows are read in place).
constexpr auto conv2d_scratch(const reference::conv2d_dims&) { return carve(scratch_align); }
/// gemm and matmul: none (rows of A and columns of B are read in place).
constexpr auto gemm_scratch(const reference::gemm_dims&) { return carve(scratch_align); }
constexpr auto matmul_scratch(const reference::matmul_dims&) { return carve(scratch_align); }

}  // namespace tessera::kernels::rv32

namespace tessera::kernels {

template <>
struct family_traits<kernel_family::rv32> {
  /// conv and gemm: 4 output channels x 2 pixels (rows), one int8 element per operand load.
  static constexpr micro_tile conv_tile{rv32::tile_channels, rv32::tile_pixels, 1};
  /// depthwise: 4 channels (one 4-byte run of each pixel's input) x 2 pixels per tap.
  static constexpr micro_tile depthwise_tile{rv32::tile_channels, rv32::tile_pixels, 1};
  static constexpr micro_tile gemm_tile{rv32::tile_channels, rv32::tile_pixels, 1};

  /// Kernel kinds this family leaves to the reference in every case (the equivalence harness
  /// accepts that they run no case): elementwise and pooling kernels.
  static constexpr const char* reference_kinds[] = {"binary", "pool"};

  // Requantization: disabled, per tensor or per channel of the output (per row too for gemm),
  // each exact (epilogue.hpp).

  template <class TIn, class TW, class TOut>
  static constexpr bool conv2d_accepts(const reference::conv2d_dims& d, const requant_params& rq) {
    return rv32::is_8bit_int<TIn> && rv32::is_8bit_int<TW> && rv32::is_output_int<TOut> && d.groups == 1 &&
           is_channelwise(rq, d.out_c);
  }
  static constexpr std::size_t conv2d_scratch_bytes(const reference::conv2d_dims& d) {
    return rv32::conv2d_scratch(d).total;
  }

  /// Depthwise: one HWC kernel without scratch (depthwise_hwc.hpp), never the CHW variant.
  template <class TIn, class TW, class TOut>
  static constexpr bool depthwise_accepts(const reference::conv2d_dims& d, const requant_params& rq) {
    return rv32::is_8bit_int<TIn> && rv32::is_8bit_int<TW> && rv32::is_output_int<TOut> && d.groups == d.in_c &&
           d.out_c == d.in_c && is_channelwise(rq, d.out_c);
  }
  static constexpr std::size_t depthwise_hwc_scratch_bytes(const reference::conv2d_dims&) { return 0; }
  static constexpr std::size_t depthwise_chw_scratch_bytes(const reference::conv2d_dims&) { return 0; }
  static constexpr bool depthwise_prefers_chw(const reference::conv2d_dims&) { return false; }

  template <class TA, class TW, class TOut>
  static constexpr bool gemm_accepts(const reference::gemm_dims& d, const requant_params& rq) {
    return rv32::is_8bit_int<TA> && rv32::is_8bit_int<TW> && rv32::is_output_int<TOut> &&
           (is_channelwise(rq, d.n) || is_rowwise(rq, d.m, d.n));
  }
  static constexpr std::size_t gemm_scratch_bytes(const reference::gemm_dims& d) {
    return rv32::gemm_scratch(d).total;
  }

  template <class TA, class TB, class TOut>
  static constexpr bool matmul_accepts(const reference::matmul_dims& d, const requant_params& rq) {
    // A transposed B ([n][k]: a folded Transpose) runs on the reference: the products read B in place as [k][n].
    return !d.b_transposed && rv32::is_8bit_int<TA> && rv32::is_8bit_int<TB> && rv32::is_output_int<TOut> &&
           is_channelwise(rq, d.n);
  }
  static constexpr std::size_t matmul_scratch_bytes(const reference::matmul_dims& d) {
    return rv32::matmul_scratch(d).total;
  }

  template <class TA, class TB, class TOut>
  static constexpr bool binary_accepts(reference::binary_op, const reference::binary_dims&, const requant_params&) {
    return false;
  }
  static constexpr std::size_t binary_scratch_bytes(const reference::binary_dims&) { return 0; }

  template <class T>
  static constexpr bool max_pool_accepts(const reference::pool2d_dims&) { return false; }
  template <class T>
  static constexpr bool average_pool_accepts(const reference::pool2d_dims&, bool) { return false; }
  static constexpr std::size_t max_pool2d_scratch_bytes(const reference::pool2d_dims&) { return 0; }
  static constexpr std::size_t average_pool2d_scratch_bytes(const reference::pool2d_dims&) { return 0; }
};

}  // namespace tessera::kernels

static_assert(tessera::kernels::family_traits_complete<tessera::kernels::family_traits<tessera::kernels::kernel_family::rv32>>,
              "family_traits<rv32> lacks a member every family declares (kernels/concepts.hpp)");
