// Integer softmax over the last axis: the dialect's iSoftmax, ITAMax and ITAPartialMax, one
// node type whose `softmax_params` say which (their kernels share the row loop).
//
// Tensors: input int8 or uint8, any shape; output the same shape, uint8 in [0, n_levels - 1].
// A row (the last dimension) is never split across tiles: the solver tiles rows only.
#pragma once

#include <tessera/graph/node.hpp>
#include <tessera/kernels/algorithm/softmax.hpp>
#include <tessera/kernels/family.hpp>
#include <tessera/kernels/reference/softmax.hpp>
#include <tessera/planning/tile_geometry.hpp>

namespace tessera::op {

using kernels::reference::softmax_kind;
using kernels::reference::softmax_params;

struct softmax_attrs {
  tensor_id input = 0;
  tensor_id output = 0;
  softmax_params params{};
};

constexpr op_kind op_kind_of(softmax_kind k) {
  switch (k) {
    case softmax_kind::i_softmax: return op_kind::i_softmax;
    case softmax_kind::ita_max: return op_kind::ita_max;
    case softmax_kind::ita_partial_max: return op_kind::ita_partial_max;
  }
  return op_kind::i_softmax;
}

template <fixed_name Name, softmax_attrs A>
struct softmax : unary_node<Name, op_kind_of(A.params.kind), A> {
  /// Rows of `length` values: the reference family runs the reference (the judge), the others
  /// the table kernel written once for all (algorithm/softmax.hpp; bit-exact with it).
  template <kernels::kernel_family F, class TIn>
  static void rows(std::int64_t count, std::int32_t length, const TIn* x, std::uint8_t* y) {
    if constexpr (F == kernels::kernel_family::reference) kernels::reference::integer_softmax(count, length, x, A.params, y);
    else kernels::algorithm::integer_softmax<A.params>(count, length, x, y);
  }

  template <auto const& T>
  static constexpr check_result check() {
    const tensor_desc& in = T[A.input];
    const tensor_desc& out = T[A.output];
    if (!tessera::detail::is_8bit(in.type) || out.type != dtype::u8) return {check_error::dtype};
    if (A.params.n_levels < 2 || A.params.n_levels > 256 || A.params.group_width < 1 || A.params.log2 < 1)
      return {check_error::constant_size};
    if (in.dims.rank < 1) return {check_error::input_rank};
    if (out.state || !tessera::detail::follows_sequence(in, out)) return {check_error::sequence};
    return tessera::detail::expect_shape(out.dims, in.dims);
  }

  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static constexpr std::size_t scratch_bytes() {
    return kernels::reference::softmax_scratch_bytes(T[A.input].dims.elements());
  }

  /// Rows of {elements / L, L}, L the last dimension, tiled in whole rows (channel_step = L).
  template <auto const& T>
  static constexpr tile_geometry tile_geometry_of() {
    const shape& s = T[A.input].dims;
    tile_geometry g = elementwise_rows(s.elements(), s.from_back(0), tiling_kind::tiled,
                                       static_cast<int>(size_of(T[A.input].type)),
                                       static_cast<int>(size_of(T[A.output].type)));
    g.channel_step = s.from_back(0);
    return g;
  }

  /// Its tiles take their extents from their arguments (a run-time length: graph/network.hpp).
  static constexpr bool tiles_at_length = true;

  template <auto const& T, kernels::kernel_family F = kernels::native_family>
  static void run_tile(const tile_args& t) {
    using in_t = storage_t<T[A.input].type>;
    rows<kernels::runnable(F)>(t.h, t.c, static_cast<const in_t*>(t.input[0]), static_cast<std::uint8_t*>(t.output));
  }

  template <auto const& T, kernels::kernel_family F = kernels::native_family>
  static void run(void* const* in, void* const* out, void*) {
    using in_t = storage_t<T[A.input].type>;
    const shape& s = T[A.input].dims;
    rows<kernels::runnable(F)>(s.elements() / s.from_back(0), s.from_back(0), static_cast<const in_t*>(in[0]),
                               static_cast<std::uint8_t*>(out[0]));
  }
  /// Over the first `length` positions (runtime/sequence_executor.hpp): rows of the live length
  /// when the sequence is the last axis (attention over the cached positions).
  template <auto const& T, kernels::kernel_family F = kernels::native_family>
  static void run_at(int length, void* const* in, void* const* out, void*) {
    using in_t = storage_t<T[A.input].type>;
    const shape s = live_dims(T[A.input], length);
    rows<kernels::runnable(F)>(s.elements() / s.from_back(0), s.from_back(0), static_cast<const in_t*>(in[0]),
                               static_cast<std::uint8_t*>(out[0]));
  }
};

}  // namespace tessera::op
