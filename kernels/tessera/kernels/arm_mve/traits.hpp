// Traits of the arm_mve family (placeholder: accepts nothing yet, so dispatch runs the reference).
#pragma once

#include <tessera/kernels/reference/traits.hpp>

namespace tessera::kernels {

template <>
struct family_traits<kernel_family::arm_mve> : family_traits<kernel_family::reference> {
  template <class, class, class>
  static constexpr bool conv2d_accepts(const reference::conv2d_dims&, const requant_params&) { return false; }
  template <class, class, class>
  static constexpr bool depthwise_accepts(const reference::conv2d_dims&, const requant_params&) { return false; }
  template <class, class, class>
  static constexpr bool gemm_accepts(const reference::gemm_dims&, const requant_params&) { return false; }
  template <class, class, class>
  static constexpr bool matmul_accepts(const reference::matmul_dims&, const requant_params&) { return false; }
  template <class, class, class>
  static constexpr bool binary_accepts(reference::binary_op, const reference::binary_dims&, const requant_params&) {
    return false;
  }
  template <class>
  static constexpr bool max_pool_accepts(const reference::pool2d_dims&) { return false; }
  template <class>
  static constexpr bool average_pool_accepts(const reference::pool2d_dims&, bool) { return false; }
};

}  // namespace tessera::kernels
