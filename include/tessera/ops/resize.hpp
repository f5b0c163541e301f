// Resize node (ONNX Resize, modes nearest and linear) over H and W of a channels-last map,
// 1D {N, W, C} or 2D {N, H, W, C}. The output tensor's extents give the scale of each axis
// (out / in, exact); N and C are unchanged. Input and output are the same 8-bit type with
// the same scale and zero point (onnx2hpp requantizes around it otherwise).
//
// Semantics and the integer rule: docs/semantics.md ("Resize"); the kernel is
// kernels/reference/resize.hpp. Runs on its L2 buffers (no tiling: an output tile reads a
// window of the input that depends on the coordinate mode).
#pragma once

#include <tessera/graph/node.hpp>
#include <tessera/kernels/family.hpp>
#include <tessera/kernels/reference/resize.hpp>
#include <tessera/ops/conv.hpp>

namespace tessera::op {

using kernels::reference::resize_coordinates;
using kernels::reference::resize_mode;
using kernels::reference::resize_nearest_rounding;

struct resize_attrs {
  tensor_id input = 0;
  tensor_id output = 0;
  resize_mode mode = resize_mode::nearest;
  resize_coordinates coordinates = resize_coordinates::asymmetric;  ///< ONNX coordinate_transformation_mode
  resize_nearest_rounding nearest = resize_nearest_rounding::floor;  ///< ONNX nearest_mode (mode nearest)
};

template <fixed_name Name, resize_attrs A>
struct resize : unary_node<Name, op_kind::resize, A> {
  template <auto const& T>
  static constexpr kernels::reference::resize_dims dims() {
    const auto in = detail::as_nhwc(T[A.input].dims);
    const auto out = detail::as_nhwc(T[A.output].dims);
    return {in[0], in[1], in[2], in[3], out[1], out[2], A.mode, A.coordinates, A.nearest};
  }

  template <auto const& T>
  static constexpr check_result check() {
    const tensor_desc& in = T[A.input];
    const tensor_desc& out = T[A.output];
    if (in.dims.rank != 4 && in.dims.rank != 3) return {check_error::input_rank};
    if (in.type != out.type || !tessera::detail::is_8bit(in.type)) return {check_error::dtype};
    if (out.dims.rank != in.dims.rank) return {check_error::output_shape, in.dims};
    const auto x = detail::as_nhwc(in.dims);
    const auto y = detail::as_nhwc(out.dims);
    if (y[1] < 1 || y[2] < 1) return {check_error::output_shape, in.dims};
    return tessera::detail::expect_shape(out.dims, detail::nhwc_like(in.dims, x[0], y[1], y[2], x[3]));
  }

  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static constexpr std::size_t scratch_bytes() {
    return kernels::reference::resize_scratch_bytes(dims<T>());
  }

  template <auto const& T>
  static constexpr std::int64_t macs() {
    // Linear: four multiply-adds per output value; nearest: none (a copy).
    return A.mode == resize_mode::linear ? 4 * T[A.output].dims.elements() : 0;
  }

  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static void run(void* const* in, void* const* out, void*) {
    using value_t = storage_t<T[A.input].type>;
    static constexpr auto d = dims<T>();
    kernels::reference::resize(d, static_cast<const value_t*>(in[0]), static_cast<value_t*>(out[0]));
  }
};

}  // namespace tessera::op
