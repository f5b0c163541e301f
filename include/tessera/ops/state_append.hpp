// Appends a call's new rows to a state tensor in place: the ONNX `Concat(cache, new, axis)` of
// a KV cache, whose inputs and output onnx2hpp turns into one caller-owned buffer
// (`--state IN=OUT`). Nothing else of the cache moves: a step writes its rows and the
// attention reads the cache where it is (runtime/sequence_executor.hpp).
//
// Tensors: `rows` of the state's type and rank, its extents those of the state except along
// `axis` (the rows a call appends); `state` a state tensor (`tensor_desc::state`) whose
// sequence axis is `axis` and whose extent there is the capacity.
#pragma once

#include <cstring>

#include <tessera/graph/node.hpp>
#include <tessera/kernels/family.hpp>

namespace tessera::op {

struct state_append_attrs {
  tensor_id rows = 0;
  tensor_id state = 0;
  int axis = 0;  ///< physical axis
};

template <fixed_name Name, state_append_attrs A>
struct state_append {
  static constexpr fixed_name name = Name;
  static constexpr op_kind kind = op_kind::concat;  // a Concat in the model, in place on the device
  static constexpr state_append_attrs attrs = A;
  static constexpr std::array<tensor_id, 1> inputs{A.rows};
  static constexpr std::array<tensor_id, 1> outputs{A.state};
  static constexpr bool is_alias = false;
  static constexpr std::size_t constant_bytes = 0;

  template <auto const& T>
  static constexpr check_result check() {
    const tensor_desc& rows = T[A.rows];
    const tensor_desc& state = T[A.state];
    if (rows.type != state.type) return {check_error::dtype};
    if (rows.dims.rank != state.dims.rank || A.axis < 0 || A.axis >= state.dims.rank) return {check_error::input_rank};
    if (!state.state || state.sequence_axis != A.axis || rows.state || rows.sequence_axis >= 0)
      return {check_error::sequence};
    for (int i = 0; i < state.dims.rank; ++i)
      if (i != A.axis && rows.dims[i] != state.dims[i]) return {check_error::input_shape};
    if (rows.dims[A.axis] < 1 || rows.dims[A.axis] > state.dims[A.axis]) return {check_error::input_shape};
    return {};
  }

  /// Positions one call appends.
  template <auto const& T>
  static constexpr int rows_per_call = T[A.rows].dims[A.axis];

  template <auto const&, kernels::kernel_family = kernels::native_family>
  static constexpr std::size_t scratch_bytes() { return 0; }
  template <auto const&>
  static constexpr std::int64_t macs() { return 0; }

  /// After the call the state holds `length` positions: the rows go to [length - rows, length)
  /// of every outer slice; the sequence executor has checked that `length` fits the capacity.
  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static void run_at(int length, void* const* in, void* const* out, void*) {
    const shape& s = T[A.state].dims;
    constexpr int added = rows_per_call<T>;
    const std::size_t row_bytes = static_cast<std::size_t>(s.inner(A.axis)) * size_of(T[A.state].type);
    const auto* from = static_cast<const std::byte*>(in[0]);
    auto* to = static_cast<std::byte*>(out[0]) + static_cast<std::size_t>(length - added) * row_bytes;
    for (std::int64_t o = 0; o < s.outer(A.axis); ++o) {
      std::memcpy(to, from, added * row_bytes);
      from += added * row_bytes;
      to += static_cast<std::size_t>(s[A.axis]) * row_bytes;
    }
  }
};

}  // namespace tessera::op
