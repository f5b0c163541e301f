// The rv32 family's kernels (RV32IM, PULP-NN's 4x2 micro-kernel shape without Xpulp) under the
// family interface, bit-exact with the reference (tests/kernels/equivalence.hpp under QEMU
// riscv32). Elementwise and pooling layers run the reference kernels (the traits decline them):
// their family_kernels entries are inherited from the reference's. Depthwise has one
// kernel (HWC, no scratch), which depthwise_chw also names (the traits never prefer CHW).
//
// Guest instructions per MAC of one hart under QEMU (rv32imc, -O2, int8, per-channel
// requantization; benchmarks/qemu/layer_benchmarks.cpp), against the reference kernels':
//   conv 3x3 s1 16->16 32x32   3.29 (10.6)    depthwise 3x3 s1 64ch 24x24   11.3 (68.7)
//   conv 3x3 s2 16->32 32x32   3.28 (10.6)    depthwise 3x3 s2 32ch 48x48   11.0 (69.6)
//   conv 3x3 s1 64->64 8x8     2.84 (6.81)    conv 10x4 s2 1->64 49x10      5.00 (40.9)
//   conv 1x1 32->64 48x48      4.34 (16.9)    fully connected 256->10       4.90 (7.80)
//                                             fully connected 640->128      3.82 (7.31)
// All nine: 4.02 (15.7).
#pragma once

#include <tessera/kernels/rv32/available.hpp>

#if TESSERA_KERNELS_RV32  // the whole header: the kernels use RV32 assembly

#include <tessera/kernels/concepts.hpp>
#include <tessera/kernels/reference/traits.hpp>
#include <tessera/kernels/rv32/conv2d_direct.hpp>
#include <tessera/kernels/rv32/depthwise_hwc.hpp>
#include <tessera/kernels/rv32/gemm_rows.hpp>
#include <tessera/kernels/rv32/matmul.hpp>
#include <tessera/kernels/rv32/traits.hpp>

namespace tessera::kernels {

template <>
struct family_kernels<kernel_family::rv32> : family_kernels<kernel_family::reference> {
  template <bool ReadsPadValue = true, class TIn, class TW, class TOut>
  static void conv2d(const reference::conv2d_dims& d, const TIn* in, const TW* w, const std::int32_t* bias,
                     const requant_params& rq, TOut* out, void* scratch) {
    rv32::conv2d_direct<ReadsPadValue>(d, in, w, bias, rq, out, scratch);
  }
  template <bool ReadsPadValue = true, class TIn, class TW, class TOut>
  static void depthwise_hwc(const reference::conv2d_dims& d, const TIn* in, const TW* w, const std::int32_t* bias,
                            const requant_params& rq, TOut* out, void* scratch) {
    rv32::depthwise_hwc<ReadsPadValue>(d, in, w, bias, rq, out, scratch);
  }
  template <bool ReadsPadValue = true, class TIn, class TW, class TOut>
  static void depthwise_chw(const reference::conv2d_dims& d, const TIn* in, const TW* w, const std::int32_t* bias,
                            const requant_params& rq, TOut* out, void* scratch) {
    rv32::depthwise_hwc<ReadsPadValue>(d, in, w, bias, rq, out, scratch);
  }
  template <class TA, class TW, class TOut>
  static void gemm(const reference::gemm_dims& d, const TA* a, const TW* w, const std::int32_t* bias,
                   const requant_params& rq, TOut* out, void* scratch) {
    rv32::gemm_rows(d, a, w, bias, rq, out, scratch);
  }
  template <class TA, class TB, class TOut>
  static void matmul(const reference::matmul_dims& d, const TA* a, const TB* b, const requant_params& rq, TOut* out,
                     void* scratch) {
    rv32::matmul_columns(d, a, b, rq, out, scratch);
  }
};

}  // namespace tessera::kernels

static_assert(tessera::kernels::family_kernels_complete<tessera::kernels::family_kernels<tessera::kernels::kernel_family::rv32>>,
              "family_kernels<rv32> lacks a kernel of the family interface (kernels/concepts.hpp)");

#endif  // TESSERA_KERNELS_RV32
