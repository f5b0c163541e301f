// The x86 family's kernels (SSE4.1, AVX2 paths where the compiler targets them) under the
// family interface: same names and signatures as the reference kernels. Compiles to nothing
// where SSE4.1 is not available (available.hpp); family_traits<x86> (traits.hpp) says what they
// accept.
#pragma once

#include <tessera/kernels/x86/available.hpp>

#if TESSERA_KERNELS_X86  // the whole header: the kernels need the instruction set

#include <tessera/kernels/concepts.hpp>
#include <tessera/kernels/reference/traits.hpp>
#include <tessera/kernels/x86/average_pool2d_hwc.hpp>
#include <tessera/kernels/x86/binary_rows.hpp>
#include <tessera/kernels/x86/conv2d_im2col.hpp>
#include <tessera/kernels/x86/depthwise_chw.hpp>
#include <tessera/kernels/x86/depthwise_hwc.hpp>
#include <tessera/kernels/x86/gemm.hpp>
#include <tessera/kernels/x86/matmul_transposed.hpp>
#include <tessera/kernels/x86/max_pool2d_hwc.hpp>
#include <tessera/kernels/x86/traits.hpp>

namespace tessera::kernels {

template <>
struct family_kernels<kernel_family::x86> {
  template <bool ReadsPadValue = true, class TIn, class TW, class TOut>
  static void conv2d(const reference::conv2d_dims& d, const TIn* in, const TW* w, const std::int32_t* bias,
                     const requant_params& rq, TOut* out, void* scratch) {
    x86::conv2d_im2col(d, in, w, bias, rq, out, scratch);
  }
  template <bool ReadsPadValue = true, class TIn, class TW, class TOut>
  static void depthwise_hwc(const reference::conv2d_dims& d, const TIn* in, const TW* w, const std::int32_t* bias,
                            const requant_params& rq, TOut* out, void* scratch) {
    x86::depthwise_hwc(d, in, w, bias, rq, out, scratch);
  }
  template <bool ReadsPadValue = true, class TIn, class TW, class TOut>
  static void depthwise_chw(const reference::conv2d_dims& d, const TIn* in, const TW* w, const std::int32_t* bias,
                            const requant_params& rq, TOut* out, void* scratch) {
    x86::depthwise_chw(d, in, w, bias, rq, out, scratch);
  }
  template <class TA, class TW, class TOut>
  static void gemm(const reference::gemm_dims& d, const TA* a, const TW* w, const std::int32_t* bias,
                   const requant_params& rq, TOut* out, void* /*scratch*/) {
    x86::gemm(d, a, w, bias, rq, out);
  }
  template <class TA, class TB, class TOut>
  static void matmul(const reference::matmul_dims& d, const TA* a, const TB* b, const requant_params& rq, TOut* out,
                     void* scratch) {
    x86::matmul_transposed(d, a, b, rq, out, scratch);
  }
  template <class TA, class TB, class TOut>
  static void binary(reference::binary_op op, const reference::binary_dims& d, const TA* a, const TB* b,
                     const requant_params& rq, TOut* out, void* /*scratch*/) {
    x86::binary_rows(op, d, a, b, rq, out);
  }
  template <class T>
  static void max_pool2d(const reference::pool2d_dims& d, const T* in, T* out, void* /*scratch*/) {
    x86::max_pool2d_hwc(d, in, out);
  }
  template <class T>
  static void average_pool2d(const reference::pool2d_dims& d, bool count_include_pad, const T* in, T* out,
                             void* /*scratch*/) {
    x86::average_pool2d_hwc(d, count_include_pad, in, out);
  }
};

}  // namespace tessera::kernels

static_assert(tessera::kernels::family_kernels_complete<tessera::kernels::family_kernels<tessera::kernels::kernel_family::x86>>,
              "family_kernels<x86> lacks a kernel of the family interface (kernels/concepts.hpp)");

#endif  // TESSERA_KERNELS_X86
