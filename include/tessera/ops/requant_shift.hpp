// Standalone RequantShift node, for the cases where onnx2hpp cannot fuse it into the op that
// feeds it (its producer has several consumers, or is a graph input, a pool, ...).
#pragma once

#include <tessera/graph/constant.hpp>
#include <tessera/graph/node.hpp>
#include <tessera/kernels/family.hpp>
#include <tessera/kernels/reference/requant_shift.hpp>
#include <tessera/planning/tile_geometry.hpp>

namespace tessera::op {

struct requant_shift_attrs {
  tensor_id input = 0;
  tensor_id output = 0;
};

template <fixed_name Name, requant_shift_attrs A, auto const& Requant>
struct requant_shift : unary_node<Name, op_kind::requant_shift, A> {
  static constexpr std::size_t constant_bytes = Requant.bytes();

  template <auto const& T>
  static constexpr check_result check() {
    const tensor_desc& out = T[A.output];
    if (!output_type_fits<Requant>(out.type)) return {check_error::dtype};
    if (out.state || !tessera::detail::follows_sequence(T[A.input], out) ||
        !tessera::detail::requant_fits_sequence(Requant.params(), out))
      return {check_error::sequence};
    return tessera::detail::expect_shape(out.dims, T[A.input].dims);
  }
  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static constexpr std::size_t scratch_bytes() {
    return kernels::reference::requant_shift_scratch_bytes(T[A.input].dims.elements());
  }

  /// Tiles as rows of {elements / C, C}, C the last dimension.
  template <auto const& T>
  static constexpr tile_geometry tile_geometry_of() {
    const shape& s = T[A.input].dims;
    const int c = s.from_back(0);
    const bool tileable = requant_tiles(Requant.params().length, Requant.params().inner, c, 1) &&
                          Requant.params().inner == 1;
    return elementwise_rows(s.elements(), c, tileable ? tiling_kind::tiled : tiling_kind::in_place,
                            static_cast<int>(size_of(T[A.input].type)), static_cast<int>(size_of(T[A.output].type)));
  }

  /// Its tiles take their extents from their arguments (a run-time length: graph/network.hpp).
  static constexpr bool tiles_at_length = true;

  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static void run_tile(const tile_args& t) {
    using in_t = storage_t<T[A.input].type>;
    using out_t = storage_t<T[A.output].type>;
    kernels::reference::requant_shift(std::int64_t{t.h} * t.c, static_cast<const in_t*>(t.input[0]),
                                      requant_for_tile(Requant.params(), T[A.input].dims.from_back(0), t.y0, t.c0,
                                                       t.h, t.c),
                                      static_cast<out_t*>(t.output));
  }

  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static void run(void* const* in, void* const* out, void*) {
    using in_t = storage_t<T[A.input].type>;
    using out_t = storage_t<T[A.output].type>;
    kernels::reference::requant_shift(T[A.input].dims.elements(), static_cast<const in_t*>(in[0]), Requant.params(),
                                      static_cast<out_t*>(out[0]));
  }
  /// Over the first `length` positions (runtime/sequence_executor.hpp).
  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static void run_at(int length, void* const* in, void* const* out, void*) {
    using in_t = storage_t<T[A.input].type>;
    using out_t = storage_t<T[A.output].type>;
    kernels::reference::requant_shift(live_dims(T[A.input], length).elements(), static_cast<const in_t*>(in[0]),
                                      Requant.params(), static_cast<out_t*>(out[0]));
  }
};

}  // namespace tessera::op
