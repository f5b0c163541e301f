// Transpose node on physical axes: output dim i is input dim perm[i]. onnx2hpp also inserts
// it where a consumer needs a layout other than the one its producer wrote.
#pragma once

#include <tessera/graph/node.hpp>
#include <tessera/kernels/family.hpp>
#include <tessera/kernels/reference/transpose.hpp>

namespace tessera::op {

struct transpose_attrs {
  tensor_id input = 0;
  tensor_id output = 0;
  std::array<int, max_rank> perm{};
};

template <fixed_name Name, transpose_attrs A>
struct transpose : unary_node<Name, op_kind::transpose, A> {
  template <auto const& T>
  static constexpr kernels::reference::transpose_dims dims() {
    return {T[A.input].dims.rank, T[A.input].dims.dims, A.perm};
  }

  template <auto const& T>
  static constexpr check_result check() {
    const tensor_desc& in = T[A.input];
    const tensor_desc& out = T[A.output];
    if (in.type != out.type) return {check_error::dtype};
    shape expected;
    expected.rank = in.dims.rank;
    bool seen[max_rank]{};
    for (int i = 0; i < in.dims.rank; ++i) {
      const int p = A.perm[static_cast<std::size_t>(i)];
      if (p < 0 || p >= in.dims.rank || seen[p]) return {check_error::input_shape};
      seen[p] = true;
      expected.dims[static_cast<std::size_t>(i)] = in.dims[p];
    }
    // The sequence axis moves with the permutation; a state input (capacity layout) is read
    // by MatMul directly (a folded Transpose), not copied.
    if (in.state || out.state) return {check_error::sequence};
    if (in.sequence_axis >= 0 ? out.sequence_axis < 0 || A.perm[static_cast<std::size_t>(out.sequence_axis)] != in.sequence_axis
                              : out.sequence_axis >= 0)
      return {check_error::sequence};
    return tessera::detail::expect_shape(out.dims, expected);
  }
  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static constexpr std::size_t scratch_bytes() {
    return kernels::reference::transpose_scratch_bytes(dims<T>());
  }

  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static void run(void* const* in, void* const* out, void*) {
    using value_t = storage_t<T[A.input].type>;
    static constexpr auto d = dims<T>();
    kernels::reference::transpose(d, static_cast<const value_t*>(in[0]), static_cast<value_t*>(out[0]));
  }
  /// Over the first `length` positions (runtime/sequence_executor.hpp).
  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static void run_at(int length, void* const* in, void* const* out, void*) {
    using value_t = storage_t<T[A.input].type>;
    const shape s = live_dims(T[A.input], length);
    kernels::reference::transpose({s.rank, s.dims, A.perm}, static_cast<const value_t*>(in[0]),
                                  static_cast<value_t*>(out[0]));
  }
};

}  // namespace tessera::op
