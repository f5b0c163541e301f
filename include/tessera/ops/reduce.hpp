// ReduceSum and ReduceMean nodes (ONNX's ReduceSum/ReduceMean on integer tensors, Deeploy's
// IntegerMean) over any set of physical axes (onnx2hpp maps the ONNX axes through the layout),
// with or without the reduced axes kept as extent 1.
//
// Tensors: input of any integer type and rank; output the input's shape with the reduced axes
// dropped (keepdims false) or set to 1 (keepdims true), of a type that holds every result:
// L * [min, max] of the input for a sum, [min, max] of the input for a mean (onnx2hpp gives
// ReduceSum int32 and a mean its input's type). Runs in place (no tiling): the reduced axes
// need not be the last ones.
#pragma once

#include <array>
#include <cstdint>

#include <tessera/graph/node.hpp>
#include <tessera/kernels/family.hpp>
#include <tessera/kernels/reference/reduce.hpp>

namespace tessera::op {

struct reduce_attrs {
  tensor_id input = 0;
  tensor_id output = 0;
  std::array<bool, max_rank> axes{};  ///< true for each physical axis reduced
  bool keepdims = true;
};

template <kernels::reference::reduce_op Op, op_kind Kind, fixed_name Name, reduce_attrs A>
struct reduce_node : unary_node<Name, Kind, A> {
  template <auto const& T>
  static constexpr kernels::reference::reduce_dims dims() {
    return {T[A.input].dims.rank, T[A.input].dims.dims, A.axes};
  }

  template <auto const& T>
  static constexpr check_result check() {
    const tensor_desc& in = T[A.input];
    const tensor_desc& out = T[A.output];
    shape expected;
    for (int ax = 0; ax < in.dims.rank; ++ax) {
      const bool reduced = A.axes[static_cast<std::size_t>(ax)];
      if (reduced && !A.keepdims) continue;
      expected.dims[static_cast<std::size_t>(expected.rank++)] = reduced ? 1 : in.dims[ax];
    }
    for (int ax = in.dims.rank; ax < max_rank; ++ax)
      if (A.axes[static_cast<std::size_t>(ax)]) return {check_error::input_rank};
    const std::int64_t l = dims<T>().length();
    const std::int64_t factor = Op == kernels::reference::reduce_op::sum ? l : 1;
    if (min_of(in.type) * factor < min_of(out.type) || max_of(in.type) * factor > max_of(out.type))
      return {check_error::dtype};
    return tessera::detail::expect_shape(out.dims, expected);
  }

  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static constexpr std::size_t scratch_bytes() {
    return kernels::reference::reduce_scratch_bytes(dims<T>());
  }

  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static void run(void* const* in, void* const* out, void*) {
    using in_t = storage_t<T[A.input].type>;
    using out_t = storage_t<T[A.output].type>;
    static constexpr auto d = dims<T>();
    kernels::reference::reduce(Op, d, static_cast<const in_t*>(in[0]), static_cast<out_t*>(out[0]));
  }
};

template <fixed_name Name, reduce_attrs A>
using reduce_sum = reduce_node<kernels::reference::reduce_op::sum, op_kind::reduce_sum, Name, A>;
template <fixed_name Name, reduce_attrs A>
using reduce_mean = reduce_node<kernels::reference::reduce_op::mean, op_kind::reduce_mean, Name, A>;

}  // namespace tessera::op
