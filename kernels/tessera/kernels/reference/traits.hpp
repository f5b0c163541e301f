// Traits of the reference family: takes every case, needs no scratch, one output at a time.
#pragma once

#include <tessera/kernels/common/micro_tile.hpp>
#include <tessera/kernels/concepts.hpp>

namespace tessera::kernels {

template <>
struct family_traits<kernel_family::reference> {
  static constexpr micro_tile conv_tile{1, 1, 1};
  static constexpr micro_tile depthwise_tile{1, 1, 1};
  static constexpr micro_tile gemm_tile{1, 1, 1};

  template <class, class, class>
  static constexpr bool conv2d_accepts(const reference::conv2d_dims&, const requant_params&) { return true; }
  static constexpr std::size_t conv2d_scratch_bytes(const reference::conv2d_dims& d) {
    return reference::conv2d_scratch_bytes(d);
  }
  template <class, class, class>
  static constexpr bool depthwise_accepts(const reference::conv2d_dims&, const requant_params&) { return true; }
  static constexpr std::size_t depthwise_hwc_scratch_bytes(const reference::conv2d_dims& d) {
    return reference::conv2d_scratch_bytes(d);
  }
  static constexpr std::size_t depthwise_chw_scratch_bytes(const reference::conv2d_dims& d) {
    return reference::conv2d_scratch_bytes(d);
  }
  static constexpr bool depthwise_prefers_chw(const reference::conv2d_dims&) { return false; }
  template <class, class, class>
  static constexpr bool gemm_accepts(const reference::gemm_dims&, const requant_params&) { return true; }
  static constexpr std::size_t gemm_scratch_bytes(const reference::gemm_dims& d) { return reference::gemm_scratch_bytes(d); }
  template <class, class, class>
  static constexpr bool matmul_accepts(const reference::matmul_dims&, const requant_params&) { return true; }
  static constexpr std::size_t matmul_scratch_bytes(const reference::matmul_dims& d) {
    return reference::matmul_scratch_bytes(d);
  }
  template <class, class, class>
  static constexpr bool binary_accepts(reference::binary_op, const reference::binary_dims&, const requant_params&) {
    return true;
  }
  static constexpr std::size_t binary_scratch_bytes(const reference::binary_dims& d) {
    return reference::binary_scratch_bytes(d);
  }
  template <class>
  static constexpr bool max_pool_accepts(const reference::pool2d_dims&) { return true; }
  template <class>
  static constexpr bool average_pool_accepts(const reference::pool2d_dims&, bool) { return true; }
  static constexpr std::size_t max_pool2d_scratch_bytes(const reference::pool2d_dims& d) {
    return reference::max_pool2d_scratch_bytes(d);
  }
  static constexpr std::size_t average_pool2d_scratch_bytes(const reference::pool2d_dims& d) {
    return reference::average_pool2d_scratch_bytes(d);
  }
};

/// The reference kernels under the family interface (depthwise variants are plain conv2d).
template <>
struct family_kernels<kernel_family::reference> {
  template <bool ReadsPadValue = true, class TIn, class TW, class TOut>
  static void conv2d(const reference::conv2d_dims& d, const TIn* in, const TW* w, const std::int32_t* bias,
                     const requant_params& rq, TOut* out, void* scratch) {
    reference::conv2d(d, in, w, bias, rq, out, scratch);
  }
  template <bool ReadsPadValue = true, class TIn, class TW, class TOut>
  static void depthwise_hwc(const reference::conv2d_dims& d, const TIn* in, const TW* w, const std::int32_t* bias,
                            const requant_params& rq, TOut* out, void* scratch) {
    reference::conv2d(d, in, w, bias, rq, out, scratch);
  }
  template <bool ReadsPadValue = true, class TIn, class TW, class TOut>
  static void depthwise_chw(const reference::conv2d_dims& d, const TIn* in, const TW* w, const std::int32_t* bias,
                            const requant_params& rq, TOut* out, void* scratch) {
    reference::conv2d(d, in, w, bias, rq, out, scratch);
  }
  template <class TA, class TW, class TOut>
  static void gemm(const reference::gemm_dims& d, const TA* a, const TW* w, const std::int32_t* bias,
                   const requant_params& rq, TOut* out, void* scratch) {
    reference::gemm(d, a, w, bias, rq, out, scratch);
  }
  template <class TA, class TB, class TOut>
  static void matmul(const reference::matmul_dims& d, const TA* a, const TB* b, const requant_params& rq, TOut* out,
                     void* scratch) {
    reference::matmul(d, a, b, rq, out, scratch);
  }
  template <class TA, class TB, class TOut>
  static void binary(reference::binary_op op, const reference::binary_dims& d, const TA* a, const TB* b,
                     const requant_params& rq, TOut* out, void* /*scratch*/) {
    reference::binary(op, d, a, b, rq, out);
  }
  template <class T>
  static void max_pool2d(const reference::pool2d_dims& d, const T* in, T* out, void* /*scratch*/) {
    reference::max_pool2d(d, in, out);
  }
  template <class T>
  static void average_pool2d(const reference::pool2d_dims& d, bool count_include_pad, const T* in, T* out,
                             void* /*scratch*/) {
    reference::average_pool2d(d, count_include_pad, in, out);
  }
};

}  // namespace tessera::kernels

static_assert(tessera::kernels::family_traits_complete<tessera::kernels::family_traits<tessera::kernels::kernel_family::reference>>,
              "family_traits<reference> lacks a member every family declares (kernels/concepts.hpp)");

static_assert(tessera::kernels::family_kernels_complete<tessera::kernels::family_kernels<tessera::kernels::kernel_family::reference>>,
              "family_kernels<reference> lacks a kernel of the family interface (kernels/concepts.hpp)");
