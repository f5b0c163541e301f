// Slice node: a strided window of the input on the physical axes (start and step per axis;
// the output shape gives the count). Steps may be negative.
#pragma once

#include <tessera/graph/node.hpp>
#include <tessera/kernels/family.hpp>
#include <tessera/kernels/reference/slice.hpp>

namespace tessera::op {

struct slice_attrs {
  tensor_id input = 0;
  tensor_id output = 0;
  std::array<int, max_rank> start{};
  std::array<int, max_rank> step{1, 1, 1, 1, 1};
};

template <fixed_name Name, slice_attrs A>
struct slice : unary_node<Name, op_kind::slice, A> {
  template <auto const& T>
  static constexpr kernels::reference::slice_dims dims() {
    return {T[A.input].dims.rank, T[A.input].dims.dims, T[A.output].dims.dims, A.start, A.step};
  }

  template <auto const& T>
  static constexpr check_result check() {
    const tensor_desc& in = T[A.input];
    const tensor_desc& out = T[A.output];
    if (in.type != out.type) return {check_error::dtype};
    if (in.dims.rank != out.dims.rank) return {check_error::input_rank};
    for (int i = 0; i < in.dims.rank; ++i) {
      const auto k = static_cast<std::size_t>(i);
      if (A.step[k] == 0 || out.dims[i] < 0) return {check_error::input_shape};
      if (out.dims[i] == 0) continue;
      const int first = A.start[k];
      const int last = A.start[k] + (out.dims[i] - 1) * A.step[k];
      if (first < 0 || first >= in.dims[i] || last < 0 || last >= in.dims[i]) return {check_error::input_shape};
    }
    return {};
  }
  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static constexpr std::size_t scratch_bytes() {
    return kernels::reference::slice_scratch_bytes(dims<T>());
  }

  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static void run(void* const* in, void* const* out, void*) {
    using value_t = storage_t<T[A.input].type>;
    static constexpr auto d = dims<T>();
    kernels::reference::slice(d, static_cast<const value_t*>(in[0]), static_cast<value_t*>(out[0]));
  }
};

}  // namespace tessera::op
