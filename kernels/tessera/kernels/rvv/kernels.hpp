// The rvv family's kernels (RISC-V vector extension 1.0, RV32, vector-length agnostic) under the
// family interface: the same names and signatures as the reference kernels, for the cases the
// traits accept.
//
// One header per kernel in this folder; the intrinsic wrappers are in ../arch/rvv.hpp. Every
// kernel is bit-exact with its reference (tests/kernels/equivalence.hpp, run under QEMU
// -cpu rv32,v=true at vlen=128 and vlen=256).
#pragma once

#include <tessera/kernels/rvv/available.hpp>

#if TESSERA_KERNELS_RVV  // the whole header: the kernels need the instruction set

#include <cstdint>

#include <tessera/kernels/concepts.hpp>
#include <tessera/kernels/rvv/binary.hpp>
#include <tessera/kernels/rvv/conv2d_im2col.hpp>
#include <tessera/kernels/rvv/depthwise_hwc.hpp>
#include <tessera/kernels/rvv/gemm.hpp>
#include <tessera/kernels/rvv/matmul.hpp>
#include <tessera/kernels/rvv/pool2d.hpp>
#include <tessera/kernels/rvv/traits.hpp>

namespace tessera::kernels {

template <>
struct family_kernels<kernel_family::rvv> {
  template <bool ReadsPadValue = true, class TIn, class TW, class TOut>
  static void conv2d(const reference::conv2d_dims& d, const TIn* in, const TW* w, const std::int32_t* bias,
                     const requant_params& rq, TOut* out, void* scratch) {
    rvv::conv2d_im2col<ReadsPadValue>(d, in, w, bias, rq, out, scratch);
  }
  template <bool ReadsPadValue = true, class TIn, class TW, class TOut>
  static void depthwise_hwc(const reference::conv2d_dims& d, const TIn* in, const TW* w, const std::int32_t* bias,
                            const requant_params& rq, TOut* out, void* scratch) {
    rvv::depthwise_hwc<ReadsPadValue>(d, in, w, bias, rq, out, scratch);
  }
  /// Channels in lanes need no CHW reorder: the HWC kernel (traits: depthwise_prefers_chw is false).
  template <bool ReadsPadValue = true, class TIn, class TW, class TOut>
  static void depthwise_chw(const reference::conv2d_dims& d, const TIn* in, const TW* w, const std::int32_t* bias,
                            const requant_params& rq, TOut* out, void* scratch) {
    rvv::depthwise_hwc<ReadsPadValue>(d, in, w, bias, rq, out, scratch);
  }
  template <class TA, class TW, class TOut>
  static void gemm(const reference::gemm_dims& d, const TA* a, const TW* w, const std::int32_t* bias,
                   const requant_params& rq, TOut* out, void* scratch) {
    rvv::gemm(d, a, w, bias, rq, out, scratch);
  }
  template <class TA, class TB, class TOut>
  static void matmul(const reference::matmul_dims& d, const TA* a, const TB* b, const requant_params& rq, TOut* out,
                     void* scratch) {
    rvv::matmul(d, a, b, rq, out, scratch);
  }
  template <class TA, class TB, class TOut>
  static void binary(reference::binary_op op, const reference::binary_dims& d, const TA* a, const TB* b,
                     const requant_params& rq, TOut* out, void* scratch) {
    rvv::binary(op, d, a, b, rq, out, scratch);
  }
  template <class T>
  static void max_pool2d(const reference::pool2d_dims& d, const T* in, T* out, void* /*scratch*/) {
    rvv::max_pool2d(d, in, out);
  }
  template <class T>
  static void average_pool2d(const reference::pool2d_dims& d, bool count_include_pad, const T* in, T* out,
                             void* /*scratch*/) {
    rvv::average_pool2d(d, count_include_pad, in, out);
  }
};

}  // namespace tessera::kernels

static_assert(tessera::kernels::family_kernels_complete<tessera::kernels::family_kernels<tessera::kernels::kernel_family::rvv>>,
              "family_kernels<rvv> lacks a kernel of the family interface (kernels/concepts.hpp)");

#endif  // TESSERA_KERNELS_RVV
