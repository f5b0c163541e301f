// Gather node: ONNX Gather of a run-time tensor along one physical axis with constant indices
// (a CCT's class token, rows of an embedding table); values unchanged.
//
// Tensors: input of any type and rank; output of the same type, the input's shape with the
// gathered axis replaced by the indices' shape (onnx2hpp passes the output's shape; the data
// is {outer, count, inner} either way). Indices: `tessera::constant<std::int32_t, count>`, each
// in [0, extent). Runs in place (no tiling).
#pragma once

#include <cstdint>

#include <tessera/graph/constant.hpp>
#include <tessera/graph/node.hpp>
#include <tessera/kernels/family.hpp>
#include <tessera/kernels/reference/gather.hpp>

namespace tessera::op {

struct gather_attrs {
  tensor_id input = 0;
  tensor_id output = 0;
  int axis = 0;  ///< physical axis of the input
};

template <fixed_name Name, gather_attrs A, auto const& Indices>
struct gather : unary_node<Name, op_kind::gather, A> {
  static constexpr std::size_t constant_bytes = Indices.bytes();

  template <auto const& T>
  static constexpr kernels::reference::gather_dims dims() {
    const shape& s = T[A.input].dims;
    return {s.outer(A.axis), s[A.axis], s.inner(A.axis)};
  }

  template <auto const& T>
  static constexpr check_result check() {
    const tensor_desc& in = T[A.input];
    const tensor_desc& out = T[A.output];
    if constexpr (is_none<Indices>) {
      return {check_error::constant_size};
    } else {
      if (A.axis < 0 || A.axis >= in.dims.rank) return {check_error::input_rank};
      if (in.type != out.type) return {check_error::dtype};
      for (std::size_t k = 0; k < Indices.size(); ++k)
        if (Indices.values[k] < 0 || Indices.values[k] >= in.dims[A.axis]) return {check_error::constant_size};
      const auto d = dims<T>();
      if (out.dims.elements() != d.outer * static_cast<std::int64_t>(Indices.size()) * d.inner)
        return {check_error::output_shape, out.dims};
      return {};
    }
  }

  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static constexpr std::size_t scratch_bytes() {
    return kernels::reference::gather_scratch_bytes(dims<T>());
  }

  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static void run(void* const* in, void* const* out, void*) {
    using value_t = storage_t<T[A.input].type>;
    static constexpr auto d = dims<T>();
    kernels::reference::gather(d, static_cast<const value_t*>(in[0]), Indices.data(),
                               static_cast<std::int64_t>(Indices.size()), static_cast<value_t*>(out[0]));
  }
};

}  // namespace tessera::op
