// The arm_dsp family's kernels (Cortex-M4/M7 DSP extension) under the family interface: one
// kernel per header in this folder, all bit-exact with the reference (checked by
// tests/kernels/equivalence.hpp under QEMU on Cortex-M4, M7 and M55).
//
// Guest instructions per MAC under QEMU (Cortex-M4, -O2, int8, per-channel requantization;
// benchmarks/qemu/layer_benchmarks.cpp), against CMSIS-NN's:
//   conv 3x3 s1 16->16 32x32   0.99 (2.33)    depthwise 3x3 s1 64ch 24x24   2.04 (8.04)
//   conv 3x3 s2 16->32 32x32   0.90 (2.14)    depthwise 3x3 s2 32ch 48x48   2.95 (8.24)
//   conv 3x3 s1 64->64 8x8     0.94 (1.76)    conv 10x4 s2 1->64 49x10      1.23 (3.49)
//   conv 1x1 32->64 48x48      1.06 (2.69)    fully connected 256->10       1.94 (2.12)
//                                             fully connected 640->128      1.55 (1.95)
// All nine: 1.07 (2.62).
#pragma once

#include <tessera/kernels/arm_dsp/available.hpp>

#if TESSERA_KERNELS_ARM_DSP  // the whole header: the kernels need the instruction set

#include <tessera/kernels/concepts.hpp>
#include <tessera/kernels/arm_dsp/average_pool2d.hpp>
#include <tessera/kernels/arm_dsp/binary_add_sub.hpp>
#include <tessera/kernels/arm_dsp/conv2d_im2col.hpp>
#include <tessera/kernels/arm_dsp/depthwise_chw.hpp>
#include <tessera/kernels/arm_dsp/depthwise_hwc.hpp>
#include <tessera/kernels/arm_dsp/flash_constants.hpp>
#include <tessera/kernels/arm_dsp/gemm_rows.hpp>
#include <tessera/kernels/arm_dsp/matmul_transposed.hpp>
#include <tessera/kernels/arm_dsp/max_pool2d.hpp>
#include <tessera/kernels/arm_dsp/traits.hpp>

namespace tessera::kernels {

template <>
struct family_kernels<kernel_family::arm_dsp> {
  template <bool ReadsPadValue = true, class TIn, class TW, class TOut>
  static void conv2d(const reference::conv2d_dims& d, const TIn* in, const TW* w, const std::int32_t* bias,
                     const requant_params& rq, TOut* out, void* scratch, bool prepared = false) {
    arm_dsp::conv2d_im2col(d, in, w, bias, rq, out, scratch, prepared);
  }
  template <bool ReadsPadValue = true, class TIn, class TW, class TOut>
  static void depthwise_hwc(const reference::conv2d_dims& d, const TIn* in, const TW* w, const std::int32_t* bias,
                            const requant_params& rq, TOut* out, void* scratch, bool prepared = false) {
    arm_dsp::depthwise_hwc(d, in, w, bias, rq, out, scratch, prepared);
  }
  template <bool ReadsPadValue = true, class TIn, class TW, class TOut>
  static void depthwise_chw(const reference::conv2d_dims& d, const TIn* in, const TW* w, const std::int32_t* bias,
                            const requant_params& rq, TOut* out, void* scratch, bool prepared = false) {
    arm_dsp::depthwise_chw<ReadsPadValue>(d, in, w, bias, rq, out, scratch, prepared);
  }

  // A whole layer's compile-time constants for variant V (flash_constants.hpp;
  // kernels::conv2d_layer): the same kernels with `prepared` false and the constants last.
  template <conv_variant V, class TIn, class TOut, const reference::conv2d_dims& D, auto const& W, auto const& B,
            auto const& R>
  using conv2d_flash = arm_dsp::layer_flash<V, TIn, TOut, D, W, B, R>;

  template <bool ReadsPadValue = true, class TIn, class TW, class TOut>
  static void conv2d(const reference::conv2d_dims& d, const TIn* in, const TW* w, const std::int32_t* bias,
                     const requant_params& rq, TOut* out, void* scratch, const arm_dsp::flash_constants& flash) {
    arm_dsp::conv2d_im2col<arm_dsp::constants_from::flash>(d, in, w, bias, rq, out, scratch, false, &flash);
  }
  template <bool ReadsPadValue = true, class TIn, class TW, class TOut>
  static void depthwise_hwc(const reference::conv2d_dims& d, const TIn* in, const TW* w, const std::int32_t* bias,
                            const requant_params& rq, TOut* out, void* scratch, const arm_dsp::flash_constants& flash) {
    arm_dsp::depthwise_hwc(d, in, w, bias, rq, out, scratch, false, &flash);
  }
  template <bool ReadsPadValue = true, class TIn, class TW, class TOut>
  static void depthwise_chw(const reference::conv2d_dims& d, const TIn* in, const TW* w, const std::int32_t* bias,
                            const requant_params& rq, TOut* out, void* scratch, const arm_dsp::flash_constants& flash) {
    arm_dsp::depthwise_chw<ReadsPadValue, arm_dsp::constants_from::flash>(d, in, w, bias, rq, out, scratch, false, &flash);
  }

  template <class TA, class TW, class TOut>
  static void gemm(const reference::gemm_dims& d, const TA* a, const TW* w, const std::int32_t* bias,
                   const requant_params& rq, TOut* out, void* scratch) {
    arm_dsp::gemm_rows(d, a, w, bias, rq, out, scratch);
  }
  template <class TA, class TOut, const reference::gemm_dims& D, auto const& B, auto const& R>
  using gemm_flash = arm_dsp::gemm_layer_flash<TA, TOut, D, B, R>;
  template <class TA, class TW, class TOut>
  static void gemm(const reference::gemm_dims& d, const TA* a, const TW* w, const std::int32_t* bias,
                   const requant_params& rq, TOut* out, void* scratch, const arm_dsp::flash_constants& flash) {
    arm_dsp::gemm_rows(d, a, w, bias, rq, out, scratch, &flash);
  }
  template <class TA, class TB, class TOut>
  static void matmul(const reference::matmul_dims& d, const TA* a, const TB* b, const requant_params& rq, TOut* out,
                     void* scratch) {
    arm_dsp::matmul_transposed(d, a, b, rq, out, scratch);
  }
  template <class TA, class TB, class TOut>
  static void binary(reference::binary_op op, const reference::binary_dims& d, const TA* a, const TB* b,
                     const requant_params& rq, TOut* out, void* scratch) {
    arm_dsp::binary_add_sub(op, d, a, b, rq, out, scratch);
  }
  template <class T>
  static void max_pool2d(const reference::pool2d_dims& d, const T* in, T* out, void* scratch) {
    arm_dsp::max_pool2d(d, in, out, scratch);
  }
  template <class T>
  static void average_pool2d(const reference::pool2d_dims& d, bool count_include_pad, const T* in, T* out,
                             void* scratch) {
    arm_dsp::average_pool2d(d, count_include_pad, in, out, scratch);
  }
};

}  // namespace tessera::kernels

static_assert(tessera::kernels::family_kernels_complete<tessera::kernels::family_kernels<tessera::kernels::kernel_family::arm_dsp>>,
              "family_kernels<arm_dsp> lacks a kernel of the family interface (kernels/concepts.hpp)");

#endif  // TESSERA_KERNELS_ARM_DSP
