// Concat node along one physical axis; all inputs share the output's element type.
#pragma once

#include <tessera/graph/node.hpp>
#include <tessera/kernels/family.hpp>
#include <tessera/kernels/reference/concat.hpp>

namespace tessera::op {

inline constexpr int max_concat_inputs = 8;

struct concat_attrs {
  std::array<tensor_id, max_concat_inputs> inputs{};
  int count = 0;
  tensor_id output = 0;
  int axis = 0;  ///< physical axis
};

template <fixed_name Name, concat_attrs A>
struct concat {
  static_assert(A.count >= 1 && A.count <= max_concat_inputs, "concat: 1 to 8 inputs");
  static constexpr fixed_name name = Name;
  static constexpr op_kind kind = op_kind::concat;
  static constexpr concat_attrs attrs = A;
  static constexpr std::array<tensor_id, static_cast<std::size_t>(A.count)> inputs = [] {
    std::array<tensor_id, static_cast<std::size_t>(A.count)> ids{};
    for (int i = 0; i < A.count; ++i) ids[static_cast<std::size_t>(i)] = A.inputs[static_cast<std::size_t>(i)];
    return ids;
  }();
  static constexpr std::array<tensor_id, 1> outputs{A.output};
  static constexpr bool is_alias = false;
  static constexpr std::size_t constant_bytes = 0;

  template <auto const& T>
  static constexpr check_result check() {
    const tensor_desc& out = T[A.output];
    if (A.axis < 0 || A.axis >= out.dims.rank) return {check_error::input_rank};
    shape expected = T[inputs[0]].dims;
    expected.dims[static_cast<std::size_t>(A.axis)] = 0;
    for (tensor_id id : inputs) {
      const tensor_desc& in = T[id];
      if (in.type != out.type) return {check_error::dtype};
      if (in.dims.rank != out.dims.rank) return {check_error::input_rank};
      for (int i = 0; i < out.dims.rank; ++i)
        if (i != A.axis && in.dims[i] != out.dims[i]) return {check_error::input_shape};
      expected.dims[static_cast<std::size_t>(A.axis)] += in.dims[A.axis];
    }
    return tessera::detail::expect_shape(out.dims, expected);
  }
  /// Extent of every input along the concatenation axis.
  template <auto const& T>
  static constexpr std::array<int, inputs.size()> extents() {
    std::array<int, inputs.size()> e{};
    for (std::size_t i = 0; i < inputs.size(); ++i) e[i] = T[inputs[i]].dims[A.axis];
    return e;
  }

  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static constexpr std::size_t scratch_bytes() {
    constexpr auto e = extents<T>();
    return kernels::reference::concat_scratch_bytes(T[A.output].dims.outer(A.axis), T[A.output].dims.inner(A.axis),
                                                    A.count, e.data());
  }
  template <auto const&>
  static constexpr std::int64_t macs() { return 0; }

  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static void run(void* const* in, void* const* out, void*) {
    using value_t = storage_t<T[A.output].type>;
    static constexpr auto axis_extents = extents<T>();
    const value_t* sources[inputs.size()];
    for (std::size_t i = 0; i < inputs.size(); ++i) sources[i] = static_cast<const value_t*>(in[i]);
    kernels::reference::concat(T[A.output].dims.outer(A.axis), T[A.output].dims.inner(A.axis), A.count, sources,
                               axis_extents.data(), static_cast<value_t*>(out[0]));
  }
};

}  // namespace tessera::op
