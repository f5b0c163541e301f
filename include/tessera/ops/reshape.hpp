// Reshape, Flatten and Identity: the data does not change, only the shape does.
//
// The planner gives the output the input's buffer when both live in the arena (an alias, no
// code runs); when either is a caller buffer (a graph input or output) the node copies.
#pragma once

#include <cstring>

#include <tessera/graph/node.hpp>
#include <tessera/kernels/family.hpp>

namespace tessera::op {

struct reshape_attrs {
  tensor_id input = 0;
  tensor_id output = 0;
};

template <fixed_name Name, reshape_attrs A>
struct reshape : unary_node<Name, op_kind::reshape, A> {
  static constexpr bool is_alias = true;

  template <auto const& T>
  static constexpr check_result check() {
    if (T[A.input].type != T[A.output].type) return {check_error::dtype};
    if (T[A.input].dims.elements() != T[A.output].dims.elements()) return {check_error::output_shape, T[A.input].dims};
    // A sequence tensor keeps its compact layout: the same extents before and after the axis.
    const tensor_desc& in = T[A.input];
    const tensor_desc& out = T[A.output];
    if (in.state || out.state || (in.sequence_axis >= 0) != (out.sequence_axis >= 0)) return {check_error::sequence};
    if (in.sequence_axis >= 0 && (in.dims.outer(in.sequence_axis) != out.dims.outer(out.sequence_axis) ||
                                  in.dims.inner(in.sequence_axis) != out.dims.inner(out.sequence_axis)))
      return {check_error::sequence};
    return {};
  }
  template <auto const&, kernels::kernel_family = kernels::native_family>
  static constexpr std::size_t scratch_bytes() { return 0; }

  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static void run(void* const* in, void* const* out, void*) {
    if (in[0] != out[0]) std::memcpy(out[0], in[0], T[A.input].bytes());
  }
  /// Over the first `length` positions (runtime/sequence_executor.hpp): the live bytes.
  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static void run_at(int length, void* const* in, void* const* out, void*) {
    if (in[0] != out[0])
      std::memcpy(out[0], in[0], static_cast<std::size_t>(live_dims(T[A.input], length).elements()) * size_of(T[A.input].type));
  }
};

}  // namespace tessera::op
