// RequantizedAdd node: out = Requant(RequantA(a) + RequantB(b)), each operand requantized onto
// the sum's scale first (Deeploy's RequantizedAdd). onnx2hpp writes it where an Add's operands
// come from RequantShift nodes that nothing else reads (tools/onnx2hpp/src/fusion.cpp): a
// residual Add of two different scales, which the unfused graph runs as three passes over the
// map with two 16-bit tensors between them, runs as one pass over the two 8-bit operands.
// Exact by construction: each operand's requantization clamps it to the range of the tensor it
// replaces (docs/semantics.md, "RequantizedAdd").
//
// `none` for RequantA or RequantB reads that operand as it is; `none` for Requant stores the
// int32 sum. The operands have the output's shape (no broadcast); each requantization is per
// tensor or per channel (the last axis).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include <tessera/graph/constant.hpp>
#include <tessera/graph/node.hpp>
#include <tessera/graph/sequence.hpp>
#include <tessera/kernels/family.hpp>
#include <tessera/kernels/reference/requantized_add.hpp>
#include <tessera/planning/tile_geometry.hpp>

namespace tessera::op {

struct requantized_add_attrs {
  tensor_id a = 0;
  tensor_id b = 0;
  tensor_id output = 0;
};

template <fixed_name Name, requantized_add_attrs A, auto const& RequantA, auto const& RequantB, auto const& Requant>
struct requantized_add {
  static constexpr fixed_name name = Name;
  static constexpr op_kind kind = op_kind::requantized_add;
  static constexpr requantized_add_attrs attrs = A;
  static constexpr std::array<tensor_id, 2> inputs{A.a, A.b};
  static constexpr std::array<tensor_id, 1> outputs{A.output};
  static constexpr bool is_alias = false;
  static constexpr std::size_t constant_bytes = RequantA.bytes() + RequantB.bytes() + Requant.bytes();

  template <auto const&>
  static constexpr std::int64_t macs() {
    return 0;
  }

  /// Whether a requantization's entries are per tensor or per channel of `channels`.
  template <auto const& R>
  static constexpr bool per_tensor_or_channel(int channels) {
    if constexpr (is_none<R>) return true;
    else return R.length() == 1 || (R.inner == 1 && R.length() == static_cast<std::size_t>(channels));
  }

  /// The range of an operand after its requantization (the operand's type without one).
  template <auto const& R>
  static constexpr std::int64_t lowest(dtype operand) {
    if constexpr (is_none<R>) return min_of(operand);
    else return R.lo;
  }
  template <auto const& R>
  static constexpr std::int64_t highest(dtype operand) {
    if constexpr (is_none<R>) return max_of(operand);
    else return R.hi;
  }

  template <auto const& T>
  static constexpr check_result check() {
    const tensor_desc& out = T[A.output];
    const int channels = out.dims.rank > 0 ? out.dims.from_back(0) : 1;
    if (!per_tensor_or_channel<RequantA>(channels) || !per_tensor_or_channel<RequantB>(channels) ||
        !per_tensor_or_channel<Requant>(channels))
      return {check_error::constant_size};
    if (T[A.a].dims != out.dims || T[A.b].dims != out.dims) return {check_error::input_shape};
    if (!output_type_fits<Requant>(out.type)) return {check_error::dtype};
    // The sum is an int32, as the unfused Add's.
    const std::int64_t lo = lowest<RequantA>(T[A.a].type) + lowest<RequantB>(T[A.b].type);
    const std::int64_t hi = highest<RequantA>(T[A.a].type) + highest<RequantB>(T[A.b].type);
    if (lo < INT32_MIN || hi > INT32_MAX) return {check_error::dtype};
    if (out.state || !tessera::detail::follows_sequence(T[A.a], out) ||
        !tessera::detail::follows_sequence(T[A.b], out) ||
        !tessera::detail::requant_fits_sequence(Requant.params(), out))
      return {check_error::sequence};
    return tessera::detail::expect_shape(out.dims, T[A.a].dims);
  }

  template <auto const& T>
  using a_t = storage_t<T[A.a].type>;
  template <auto const& T>
  using b_t = storage_t<T[A.b].type>;
  template <auto const& T>
  using out_t = storage_t<T[A.output].type>;

  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static constexpr std::size_t scratch_bytes() {
    return kernels::reference::requantized_add_scratch_bytes(T[A.output].dims.elements());
  }
  template <auto const& T, kernels::kernel_family>
  static constexpr std::size_t tile_scratch(const tile_geometry&, const tile_shape& s) {
    return kernels::reference::requantized_add_scratch_bytes(std::int64_t{s.h} * s.c);
  }

  /// Tiles as rows of {elements / C, C} when both operands have one element size (the tile
  /// geometry has one input element size).
  template <auto const& T>
  static constexpr tile_geometry tile_geometry_of() {
    const shape& s = T[A.output].dims;
    const bool tileable = size_of(T[A.a].type) == size_of(T[A.b].type);
    return elementwise_rows(s.elements(), s.from_back(0), tileable ? tiling_kind::tiled : tiling_kind::in_place,
                            static_cast<int>(size_of(T[A.a].type)), static_cast<int>(size_of(T[A.output].type)), 2);
  }

  /// Its tiles take their extents from their arguments (a run-time length: graph/network.hpp).
  static constexpr bool tiles_at_length = true;

  /// One tile of `t.h` rows of `t.c` channels from `t.c0` (every requantization starts there).
  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static void run_tile(const tile_args& t) {
    const int channels = T[A.output].dims.from_back(0);
    const auto tile_rq = [&](const requant_params& rq) { return requant_for_tile(rq, channels, t.y0, t.c0, t.h, t.c); };
    kernels::reference::requantized_add(std::int64_t{t.h} * t.c, static_cast<const a_t<T>*>(t.input[0]),
                                        static_cast<const b_t<T>*>(t.input[1]), tile_rq(RequantA.params()),
                                        tile_rq(RequantB.params()), tile_rq(Requant.params()),
                                        static_cast<out_t<T>*>(t.output));
  }

  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static void run(void* const* in, void* const* out, void*) {
    run_over<T>(T[A.output].dims.elements(), in, out);
  }
  /// Over the first `length` positions (runtime/sequence_executor.hpp).
  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static void run_at(int length, void* const* in, void* const* out, void*) {
    run_over<T>(live_dims(T[A.output], length).elements(), in, out);
  }

 private:
  template <auto const& T>
  static void run_over(std::int64_t count, void* const* in, void* const* out) {
    kernels::reference::requantized_add(count, static_cast<const a_t<T>*>(in[0]), static_cast<const b_t<T>*>(in[1]),
                                        RequantA.params(), RequantB.params(), Requant.params(),
                                        static_cast<out_t<T>*>(out[0]));
  }
};

}  // namespace tessera::op
