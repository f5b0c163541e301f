// Traits of the rvv family (RISC-V vector extension 1.0, RV32): what its kernels take, compute
// at once and need as scratch. Plain constexpr code that compiles on every host, so an x86 build
// plans an rv32gcv schedule with these sizes; the kernels are in this folder (kernels.hpp) and
// need riscv_vector.h.
//
// The kernels are vector-length agnostic: channels go in lanes, as many as vsetvli grants (16
// or 32 per register group at VLEN 128, twice that at 256). The micro-tile below is the
// VLEN-128 one, a rounding hint for the tile solver; no scratch size depends on VLEN.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <tessera/kernels/algorithm/scratch.hpp>
#include <tessera/kernels/common/micro_tile.hpp>
#include <tessera/kernels/common/requant_epilogue.hpp>
#include <tessera/kernels/concepts.hpp>
#include <tessera/kernels/reference/traits.hpp>

namespace tessera::kernels::rvv {

/// Rows (output pixels, or rows of A) of one matrix micro-kernel block: six int32 accumulator
/// groups of 4 registers (LMUL 2), or two passes of three groups of 8 (LMUL 4), in the 32
/// vector registers.
inline constexpr int block_rows = 6;
/// Output channels per register group at VLEN 128 (int16 operands, LMUL 2).
inline constexpr int lanes_128 = 16;

constexpr std::size_t at_least_1(int x) { return x > 0 ? std::size_t(x) : 1; }

using kernels::is_8bit_int;  // common/micro_tile.hpp
using kernels::is_output_int;

/// Starts and parts at 8 bytes: int32 and int16 vector accesses must be element-aligned.
inline constexpr scratch_alignment scratch_align{8, 8};

/// The accumulators of one block: block_rows rows of `cols` int32.
constexpr std::size_t block_acc_bytes(int cols) { return block_rows * at_least_1(cols) * 4; }

/// conv2d: im2col of one block, interleaved ([t][row]: the block's activations for one
/// reduction index are adjacent, read by scalar loads at fixed offsets) | block accumulators.
/// Example: 3x3x16 -> 16: 864 + 384 + 7 = 1255 bytes.
constexpr std::size_t conv2d_reduction(const reference::conv2d_dims& d) {
  return std::size_t(d.kernel_h) * d.kernel_w * (d.in_c / (d.groups > 0 ? d.groups : 1));
}
constexpr auto conv2d_scratch(const reference::conv2d_dims& d) {
  return carve(scratch_align, block_rows * at_least_1(int(conv2d_reduction(d))), block_acc_bytes(d.out_c));
}

/// gemm: block_rows rows of A interleaved | block accumulators.
constexpr auto gemm_scratch(const reference::gemm_dims& d) {
  return carve(scratch_align, block_rows * at_least_1(d.k), block_acc_bytes(d.n));
}

/// matmul: the same over [m][k] x [k][n] (B is read in place: its rows are channel vectors).
constexpr auto matmul_scratch(const reference::matmul_dims& d) {
  return carve(scratch_align, block_rows * at_least_1(d.k), block_acc_bytes(d.n));
}

/// depthwise (HWC; the CHW entry runs it too): weights widened to int16 as [tap][channel] |
/// one pixel's int32 sums. Example: 3x3, 64 channels: 1152 + 256 + 7 = 1415 bytes.
constexpr auto depthwise_scratch(const reference::conv2d_dims& d) {
  return carve(scratch_align, std::size_t(d.kernel_h) * d.kernel_w * at_least_1(d.out_c) * 2,
               at_least_1(d.out_c) * 4);
}

/// binary: one row of int32 results (the innermost axis).
constexpr int binary_channels(const reference::binary_dims& d) {
  return d.rank >= 1 ? d.out[std::size_t(d.rank - 1)] : 1;
}
constexpr auto binary_scratch(const reference::binary_dims& d) {
  return carve(scratch_align, at_least_1(binary_channels(d)) * 4);
}

using kernels::binary_layout_supported;  // common/micro_tile.hpp

}  // namespace tessera::kernels::rvv

namespace tessera::kernels {

template <>
struct family_traits<kernel_family::rvv> {
  /// conv and gemm: 16 output channels (one LMUL-2 group of int16 lanes at VLEN 128) x 6 pixels.
  static constexpr micro_tile conv_tile{rvv::lanes_128, rvv::block_rows, rvv::lanes_128};
  /// depthwise: channels in lanes, one pixel at a time.
  static constexpr micro_tile depthwise_tile{rvv::lanes_128, 1, rvv::lanes_128};
  static constexpr micro_tile gemm_tile{rvv::lanes_128, rvv::block_rows, rvv::lanes_128};

  // Requantization: disabled, per tensor or per output channel (per row too for gemm), every
  // shift and parameter exactly (int64 lanes: requant.hpp).

  template <class TIn, class TW, class TOut>
  static constexpr bool conv2d_accepts(const reference::conv2d_dims& d, const requant_params& rq) {
    return rvv::is_8bit_int<TIn> && std::is_same_v<TW, std::int8_t> && rvv::is_output_int<TOut> && d.groups == 1 &&
           is_channelwise(rq, d.out_c);
  }
  static constexpr std::size_t conv2d_scratch_bytes(const reference::conv2d_dims& d) {
    return rvv::conv2d_scratch(d).total;
  }

  template <class TIn, class TW, class TOut>
  static constexpr bool depthwise_accepts(const reference::conv2d_dims& d, const requant_params& rq) {
    return rvv::is_8bit_int<TIn> && std::is_same_v<TW, std::int8_t> && rvv::is_output_int<TOut> &&
           d.groups == d.in_c && d.out_c == d.in_c && is_channelwise(rq, d.out_c);
  }
  static constexpr std::size_t depthwise_hwc_scratch_bytes(const reference::conv2d_dims& d) {
    return rvv::depthwise_scratch(d).total;
  }
  static constexpr std::size_t depthwise_chw_scratch_bytes(const reference::conv2d_dims& d) {
    return rvv::depthwise_scratch(d).total;
  }
  /// Channels in lanes: no CHW reorder (the CHW entry runs the HWC kernel).
  static constexpr bool depthwise_prefers_chw(const reference::conv2d_dims&) { return false; }

  template <class TA, class TW, class TOut>
  static constexpr bool gemm_accepts(const reference::gemm_dims& d, const requant_params& rq) {
    return rvv::is_8bit_int<TA> && std::is_same_v<TW, std::int8_t> && rvv::is_output_int<TOut> &&
           (is_channelwise(rq, d.n) || is_rowwise(rq, d.m, d.n));
  }
  static constexpr std::size_t gemm_scratch_bytes(const reference::gemm_dims& d) { return rvv::gemm_scratch(d).total; }

  template <class TA, class TB, class TOut>
  static constexpr bool matmul_accepts(const reference::matmul_dims& d, const requant_params& rq) {
    // A transposed B ([n][k]: a folded Transpose) runs on the reference: the products read B in place as [k][n].
    return !d.b_transposed && rvv::is_8bit_int<TA> && rvv::is_8bit_int<TB> && rvv::is_output_int<TOut> &&
           is_channelwise(rq, d.n);
  }
  static constexpr std::size_t matmul_scratch_bytes(const reference::matmul_dims& d) {
    return rvv::matmul_scratch(d).total;
  }

  template <class TA, class TB, class TOut>
  static constexpr bool binary_accepts(reference::binary_op op, const reference::binary_dims& d,
                                       const requant_params& rq) {
    return reference::is_plain_add_sub(op, d) && rvv::is_8bit_int<TA> && rvv::is_8bit_int<TB> &&
           rvv::is_output_int<TOut> && rvv::binary_layout_supported(d) &&
           is_channelwise(rq, rvv::binary_channels(d));
  }
  static constexpr std::size_t binary_scratch_bytes(const reference::binary_dims& d) {
    return rvv::binary_scratch(d).total;
  }

  template <class T>
  static constexpr bool max_pool_accepts(const reference::pool2d_dims&) { return rvv::is_8bit_int<T>; }
  template <class T>
  static constexpr bool average_pool_accepts(const reference::pool2d_dims&, bool) { return rvv::is_8bit_int<T>; }
  static constexpr std::size_t max_pool2d_scratch_bytes(const reference::pool2d_dims&) { return 0; }
  static constexpr std::size_t average_pool2d_scratch_bytes(const reference::pool2d_dims&) { return 0; }
};

}  // namespace tessera::kernels

static_assert(tessera::kernels::family_traits_complete<tessera::kernels::family_traits<tessera::kernels::kernel_family::rvv>>,
              "family_traits<rvv> lacks a member every family declares (kernels/concepts.hpp)");
