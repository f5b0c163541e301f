// The arm_mve family's kernels (Cortex-M55/M85 Helium) under the family interface: the same
// names and signatures as the reference kernels, for the cases the traits accept.
//
// One header per kernel in this folder; the instruction wrappers are in ../arch/arm_mve.hpp.
// Every kernel is bit-exact with its reference (tests/kernels/equivalence.hpp, run under QEMU
// mps3-an547).
#pragma once

#include <tessera/kernels/arm_mve/available.hpp>

#if TESSERA_KERNELS_ARM_MVE  // the whole header: the kernels need the instruction set

#include <cstdint>

#include <tessera/kernels/concepts.hpp>
#include <tessera/kernels/conv_variant.hpp>
#include <tessera/kernels/arm_mve/average_pool2d.hpp>
#include <tessera/kernels/arm_mve/binary.hpp>
#include <tessera/kernels/arm_mve/conv2d_im2col.hpp>
#include <tessera/kernels/arm_mve/depthwise_chw.hpp>
#include <tessera/kernels/arm_mve/depthwise_hwc.hpp>
#include <tessera/kernels/arm_mve/gemm.hpp>
#include <tessera/kernels/arm_mve/matmul.hpp>
#include <tessera/kernels/arm_mve/max_pool2d.hpp>
#include <tessera/kernels/arm_mve/traits.hpp>

namespace tessera::kernels {

namespace arm_mve {
/// A whole layer's choices made at compile time (kernels::conv2d_layer's "flash constants"; the
/// arm_mve kernels take nothing else from flash): the micro-kernel of its reduction and the
/// orientation of its depthwise plane, by the functions a call runs. A firmware then links the
/// forms its layers use, not every one a call could pick (keyword spotting: 2 of the 9 micro-
/// kernel forms, and no orientation test). The kernels still read the weights, bias and
/// requantization arrays.
template <mat_mult_3x2_fn Kernel, plane_geometry Geometry>
struct layer_choice {};

/// A whole Gemm layer's choice (kernels::gemm_layer): the micro-kernel of its k.
template <const reference::gemm_dims& D>
struct gemm_choices {
  static constexpr bool needs_requant = true;
  static constexpr bool needs_bias = true;
  static constexpr layer_choice<mat_mult_3x2_for(D.k), plane_geometry::per_call> constants{};
};

template <conv_variant V, const reference::conv2d_dims& D>
struct layer_choices {
  static constexpr bool needs_requant = true;
  static constexpr bool needs_weights = true;
  static constexpr layer_choice<V == conv_variant::im2col ? detail::conv2d_micro_kernel(D) : nullptr,
                                V != conv_variant::depthwise_chw || !depthwise_chw_window_fits(D)
                                    ? plane_geometry::per_call
                                : detail::depthwise_chw_transposes(D) ? plane_geometry::exchanged
                                                                      : plane_geometry::rows>
      constants{};
};
}  // namespace arm_mve

template <>
struct family_kernels<kernel_family::arm_mve> {
  template <bool ReadsPadValue = true, class TIn, class TW, class TOut>
  static void conv2d(const reference::conv2d_dims& d, const TIn* in, const TW* w, const std::int32_t* bias,
                     const requant_params& rq, TOut* out, void* scratch) {
    arm_mve::conv2d_im2col(d, in, w, bias, rq, out, scratch);
  }
  template <bool ReadsPadValue = true, class TIn, class TW, class TOut>
  static void depthwise_hwc(const reference::conv2d_dims& d, const TIn* in, const TW* w, const std::int32_t* bias,
                            const requant_params& rq, TOut* out, void* scratch) {
    arm_mve::depthwise_hwc<ReadsPadValue>(d, in, w, bias, rq, out, scratch);
  }

  template <conv_variant V, class TIn, class TOut, const reference::conv2d_dims& D, auto const& W, auto const& B,
            auto const& R>
  using conv2d_flash = arm_mve::layer_choices<V, D>;

  template <bool ReadsPadValue = true, class TIn, class TW, class TOut, arm_mve::mat_mult_3x2_fn Kernel,
            arm_mve::plane_geometry G>
  static void conv2d(const reference::conv2d_dims& d, const TIn* in, const TW* w, const std::int32_t* bias,
                     const requant_params& rq, TOut* out, void* scratch, arm_mve::layer_choice<Kernel, G>) {
    arm_mve::conv2d_im2col<TIn, TOut, Kernel>(d, in, w, bias, rq, out, scratch);
  }
  template <bool ReadsPadValue = true, class TIn, class TW, class TOut, arm_mve::mat_mult_3x2_fn Kernel,
            arm_mve::plane_geometry G>
  static void depthwise_hwc(const reference::conv2d_dims& d, const TIn* in, const TW* w, const std::int32_t* bias,
                            const requant_params& rq, TOut* out, void* scratch, arm_mve::layer_choice<Kernel, G>) {
    arm_mve::depthwise_hwc<ReadsPadValue>(d, in, w, bias, rq, out, scratch);
  }
  template <bool ReadsPadValue = true, class TIn, class TW, class TOut, arm_mve::mat_mult_3x2_fn Kernel,
            arm_mve::plane_geometry G>
  static void depthwise_chw(const reference::conv2d_dims& d, const TIn* in, const TW* w, const std::int32_t* bias,
                            const requant_params& rq, TOut* out, void* scratch, arm_mve::layer_choice<Kernel, G>) {
    arm_mve::depthwise_chw<ReadsPadValue, G>(d, in, w, bias, rq, out, scratch);
  }
  template <bool ReadsPadValue = true, class TIn, class TW, class TOut>
  static void depthwise_chw(const reference::conv2d_dims& d, const TIn* in, const TW* w, const std::int32_t* bias,
                            const requant_params& rq, TOut* out, void* scratch) {
    arm_mve::depthwise_chw<ReadsPadValue>(d, in, w, bias, rq, out, scratch);
  }
  template <class TA, class TW, class TOut>
  static void gemm(const reference::gemm_dims& d, const TA* a, const TW* w, const std::int32_t* bias,
                   const requant_params& rq, TOut* out, void* scratch) {
    arm_mve::gemm(d, a, w, bias, rq, out, scratch);
  }
  template <class TA, class TOut, const reference::gemm_dims& D, auto const& B, auto const& R>
  using gemm_flash = arm_mve::gemm_choices<D>;
  template <class TA, class TW, class TOut, arm_mve::mat_mult_3x2_fn Kernel, arm_mve::plane_geometry G>
  static void gemm(const reference::gemm_dims& d, const TA* a, const TW* w, const std::int32_t* bias,
                   const requant_params& rq, TOut* out, void* scratch, arm_mve::layer_choice<Kernel, G>) {
    arm_mve::gemm<TA, TOut, Kernel>(d, a, w, bias, rq, out, scratch);
  }
  template <class TA, class TB, class TOut>
  static void matmul(const reference::matmul_dims& d, const TA* a, const TB* b, const requant_params& rq, TOut* out,
                     void* scratch) {
    arm_mve::matmul(d, a, b, rq, out, scratch);
  }
  template <class TA, class TB, class TOut>
  static void binary(reference::binary_op op, const reference::binary_dims& d, const TA* a, const TB* b,
                     const requant_params& rq, TOut* out, void* scratch) {
    arm_mve::binary(op, d, a, b, rq, out, scratch);
  }
  template <class T>
  static void max_pool2d(const reference::pool2d_dims& d, const T* in, T* out, void* /*scratch*/) {
    arm_mve::max_pool2d(d, in, out);
  }
  template <class T>
  static void average_pool2d(const reference::pool2d_dims& d, bool count_include_pad, const T* in, T* out,
                             void* /*scratch*/) {
    arm_mve::average_pool2d(d, count_include_pad, in, out);
  }
};

}  // namespace tessera::kernels

static_assert(tessera::kernels::family_kernels_complete<tessera::kernels::family_kernels<tessera::kernels::kernel_family::arm_mve>>,
              "family_kernels<arm_mve> lacks a kernel of the family interface (kernels/concepts.hpp)");

#endif  // TESSERA_KERNELS_ARM_MVE
