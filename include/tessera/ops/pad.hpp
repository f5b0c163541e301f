// Constant Pad node on the physical axes (onnx2hpp maps ONNX axes through the layout).
// A Pad that feeds a Conv is folded into the Conv's padding by onnx2hpp; this node is the
// standalone case.
#pragma once

#include <tessera/graph/node.hpp>
#include <tessera/kernels/family.hpp>
#include <tessera/kernels/reference/pad.hpp>

namespace tessera::op {

struct pad_attrs {
  tensor_id input = 0;
  tensor_id output = 0;
  std::array<int, max_rank> before{};
  std::array<int, max_rank> after{};
  std::int32_t value = 0;  ///< true value written into the border
};

template <fixed_name Name, pad_attrs A>
struct pad : unary_node<Name, op_kind::pad, A> {
  template <auto const& T>
  static constexpr kernels::reference::pad_dims dims() {
    return {T[A.input].dims.rank, T[A.input].dims.dims, A.before, A.after};
  }

  template <auto const& T>
  static constexpr check_result check() {
    const tensor_desc& in = T[A.input];
    const tensor_desc& out = T[A.output];
    if (in.type != out.type) return {check_error::dtype};
    if (A.value < min_of(in.type) || A.value > max_of(in.type)) return {check_error::dtype};
    shape expected = in.dims;
    for (int i = 0; i < in.dims.rank; ++i) {
      const auto k = static_cast<std::size_t>(i);
      if (A.before[k] < 0 || A.after[k] < 0) return {check_error::input_shape};
      expected.dims[k] += A.before[k] + A.after[k];
    }
    return tessera::detail::expect_shape(out.dims, expected);
  }

  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static constexpr std::size_t scratch_bytes() {
    return kernels::reference::pad_scratch_bytes(dims<T>());
  }

  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static void run(void* const* in, void* const* out, void*) {
    using value_t = storage_t<T[A.input].type>;
    static constexpr auto d = dims<T>();
    kernels::reference::pad(d, static_cast<const value_t*>(in[0]), static_cast<value_t>(A.value),
                            static_cast<value_t*>(out[0]));
  }
};

}  // namespace tessera::op
