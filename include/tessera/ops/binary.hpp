// Elementwise Add, Sub and Mul with numpy broadcasting, on true integer values; int32 result or
// a fused RequantShift. The right operand may be a constant (a bias added after a MatMul, say).
// Mul may add an offset to each operand first: a QLinearMul's (a - za) * (b - zb) is
// `mul` with a_offset = -za, b_offset = -zb.
//
// Tensors: a and b of any rank <= 5 (missing leading dims broadcast), output the broadcast
// shape. Both operands must use the same physical layout; onnx2hpp guarantees it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

#include <tessera/graph/constant.hpp>
#include <tessera/graph/node.hpp>
#include <tessera/kernels/dispatch.hpp>
#include <tessera/planning/tile_geometry.hpp>

namespace tessera::op {

struct binary_attrs {
  tensor_id a = 0;
  tensor_id b = -1;   ///< -1: the right operand is the constant argument, of shape `b_shape`
  tensor_id output = 0;
  shape b_shape{};
  std::int32_t a_offset = 0;  ///< added to every value of a before the op (see reference::binary_dims)
  std::int32_t b_offset = 0;
};

namespace detail {
/// Broadcast strides of `s` against an output of rank `rank`: 0 where `s` has extent 1.
constexpr std::array<std::int64_t, max_rank> broadcast_strides(const shape& s, const shape& out) {
  std::array<std::int64_t, max_rank> strides{};
  std::int64_t stride = 1;
  for (int i = 0; i < out.rank; ++i) {  // i counts from the innermost dim
    const int extent = s.from_back(i);
    strides[static_cast<std::size_t>(out.rank - 1 - i)] = extent == 1 ? 0 : stride;
    stride *= extent;
  }
  return strides;
}
constexpr bool broadcast_shape(const shape& a, const shape& b, shape& out) {
  out.rank = a.rank > b.rank ? a.rank : b.rank;
  for (int i = 0; i < out.rank; ++i) {
    const int da = a.from_back(i), db = b.from_back(i);
    if (da != db && da != 1 && db != 1) return false;
    out.dims[static_cast<std::size_t>(out.rank - 1 - i)] = da > db ? da : db;
  }
  return true;
}
}  // namespace detail

template <kernels::reference::binary_op Op, op_kind Kind, fixed_name Name, binary_attrs A, auto const& ConstantB,
          auto const& Requant>
struct binary_node {
  static constexpr fixed_name name = Name;
  static constexpr op_kind kind = Kind;
  static constexpr binary_attrs attrs = A;
  static constexpr bool b_is_constant = A.b < 0;
  static constexpr std::size_t input_count = b_is_constant ? 1 : 2;
  static constexpr std::array<tensor_id, input_count> inputs = [] {
    std::array<tensor_id, input_count> ids{};
    ids[0] = A.a;
    if constexpr (!b_is_constant) ids[1] = A.b;
    return ids;
  }();
  static constexpr std::array<tensor_id, 1> outputs{A.output};
  static constexpr bool is_alias = false;
  static constexpr std::size_t constant_bytes = ConstantB.bytes() + Requant.bytes();

  template <auto const& T>
  static constexpr shape b_shape() {
    if constexpr (b_is_constant) return A.b_shape;
    else return T[A.b].dims;
  }

  template <auto const& T>
  static constexpr kernels::reference::binary_dims dims() {
    const shape& out = T[A.output].dims;
    return {out.rank, out.dims, detail::broadcast_strides(T[A.a].dims, out),
            detail::broadcast_strides(b_shape<T>(), out), A.a_offset, A.b_offset};
  }
  /// A tile: `rows` dense rows of `c` elements of both operands and the output.
  static constexpr kernels::reference::binary_dims tile_dims(int rows, int c) {
    return {2, {rows, c}, {c, 1}, {c, 1}, A.a_offset, A.b_offset};
  }

  /// max |v + offset| over the values v of T.
  template <class V>
  static constexpr std::int64_t largest_magnitude(std::int32_t offset) {
    const std::int64_t lo = std::int64_t{std::numeric_limits<V>::min()} + offset;
    const std::int64_t hi = std::int64_t{std::numeric_limits<V>::max()} + offset;
    return lo < 0 && -lo > hi ? -lo : (hi < 0 ? -hi : hi);
  }

  /// max |b + b_offset|: over the constant's values, or over the run-time operand's type.
  template <auto const& T>
  static constexpr std::int64_t largest_b_magnitude() {
    if constexpr (b_is_constant) {
      std::int64_t largest = 0;
      for (std::size_t i = 0; i < ConstantB.size(); ++i) {
        const std::int64_t v = std::int64_t{ConstantB.values[i]} + A.b_offset;
        largest = std::max(largest, v < 0 ? -v : v);
      }
      return largest;
    } else {
      return largest_magnitude<b_t<T>>(A.b_offset);
    }
  }

  template <auto const& T>
  static constexpr check_result check() {
    const tensor_desc& out = T[A.output];
    if constexpr (b_is_constant) {
      if (is_none<ConstantB> || ConstantB.size() != static_cast<std::size_t>(A.b_shape.elements()))
        return {check_error::constant_size};
    }
    shape expected;
    if (!detail::broadcast_shape(T[A.a].dims, b_shape<T>(), expected)) return {check_error::input_shape};
    if (!output_type_fits<Requant>(out.type)) return {check_error::dtype};
    if (!sequence_rules_hold<T>()) return {check_error::sequence};
    // The kernels multiply in int32: the operands (offsets included) must keep the product there.
    if constexpr (Op == kernels::reference::binary_op::mul) {
      if (largest_magnitude<a_t<T>>(A.a_offset) * largest_b_magnitude<T>() > std::int64_t{INT32_MAX})
        return {check_error::dtype};
    }
    return tessera::detail::expect_shape(out.dims, expected);
  }

  /// Operands follow the output's sequence axis (graph/sequence.hpp); a constant broadcasts along it.
  template <auto const& T>
  static constexpr bool sequence_rules_hold() {
    const tensor_desc& out = T[A.output];
    const tensor_desc b = b_is_constant ? tensor_desc{{}, out.type, A.b_shape} : T[A.b];
    return !out.state && tessera::detail::follows_sequence(T[A.a], out) && tessera::detail::follows_sequence(b, out) &&
           tessera::detail::requant_fits_sequence(Requant.params(), out);
  }

  template <auto const& T>
  using a_t = storage_t<T[A.a].type>;
  template <auto const& T>
  using out_t = storage_t<T[A.output].type>;
  template <auto const& T>
  static constexpr auto b_type() {
    if constexpr (b_is_constant) return typename std::remove_cvref_t<decltype(ConstantB)>::value_type{};
    else return storage_t<T[A.b].type>{};
  }
  template <auto const& T>
  using b_t = decltype(b_type<T>());

  /// The family that runs this layer: `F`, or the reference where F's traits decline it.
  template <auto const& T, kernels::kernel_family F>
  static constexpr kernels::kernel_family family =
      kernels::choose_binary<F, a_t<T>, b_t<T>, out_t<T>>(Op, dims<T>(), Requant.params());
  /// Tiles are dense rows of the output: the same kernel choice on a contiguous shape.
  template <auto const& T, kernels::kernel_family F>
  static constexpr kernels::kernel_family tile_family =
      kernels::choose_binary<F, a_t<T>, b_t<T>, out_t<T>>(Op, tile_dims(1, T[A.output].dims.from_back(0)),
                                                         Requant.params());

  template <auto const& T, kernels::kernel_family F>
  static constexpr const char* kernel_name() {
    return kernels::family_name(family<T, F>);
  }

  template <auto const& T, kernels::kernel_family F = kernels::native_family>
  static constexpr std::size_t scratch_bytes() {
    return kernels::binary_scratch_bytes<family<T, F>>(dims<T>());
  }

  template <auto const& T, kernels::kernel_family F>
  static constexpr std::size_t tile_scratch(const tile_geometry&, const tile_shape& s) {
    return kernels::binary_scratch_bytes<tile_family<T, F>>(tile_dims(s.h, s.c));
  }
  template <auto const&>
  static constexpr std::int64_t macs() { return 0; }

  /// Tiles as rows of {elements / C, C} when both operands have the output's shape and element
  /// size (broadcasting operands and constants run in place).
  template <auto const& T>
  static constexpr tile_geometry tile_geometry_of() {
    const shape& s = T[A.output].dims;
    const int c = s.from_back(0);
    bool tileable = !b_is_constant && requant_tiles(Requant.params().length, Requant.params().inner, c, 1) &&
                    Requant.params().inner == 1;
    if constexpr (!b_is_constant) {
      tileable = tileable && T[A.a].dims == s && T[A.b].dims == s && size_of(T[A.a].type) == size_of(T[A.b].type);
    }
    // A decoder's score offset tiles with the scores over a run-time length (one operand).
    const bool offsets_sequence = adds_one_constant<T> && T[A.output].sequence_axis >= 0;
    return elementwise_rows(s.elements(), c, tileable || offsets_sequence ? tiling_kind::tiled : tiling_kind::in_place,
                            static_cast<int>(size_of(T[A.a].type)), static_cast<int>(size_of(T[A.output].type)),
                            offsets_sequence ? 1 : 2);
  }

  /// Its tiles take their extents from their arguments (a run-time length: graph/network.hpp).
  static constexpr bool tiles_at_length = true;

  template <auto const& T, kernels::kernel_family F = kernels::native_family>
  static void run_tile(const tile_args& t) {
    if constexpr (adds_one_constant<T>) {
      add_one_constant<T>(std::int64_t{t.h} * t.c, static_cast<const a_t<T>*>(t.input[0]), static_cast<out_t<T>*>(t.output));
    } else if constexpr (!b_is_constant) {
      kernels::binary<tile_family<T, kernels::runnable(F)>>(
          Op, tile_dims(t.h, t.c), static_cast<const a_t<T>*>(t.input[0]), static_cast<const b_t<T>*>(t.input[1]),
          requant_for_tile(Requant.params(), T[A.output].dims.from_back(0), t.y0, t.c0, t.h, t.c),
          static_cast<out_t<T>*>(t.output), t.scratch);
    }
  }

  template <auto const& T, kernels::kernel_family F = kernels::native_family>
  static void run(void* const* in, void* const* out, void* scratch) {
    static constexpr auto d = dims<T>();
    const b_t<T>* b = nullptr;
    if constexpr (b_is_constant) b = ConstantB.data();
    else b = static_cast<const b_t<T>*>(in[1]);
    kernels::binary<family<T, kernels::runnable(F)>>(Op, d, static_cast<const a_t<T>*>(in[0]), b, Requant.params(),
                                                     static_cast<out_t<T>*>(out[0]), scratch);
  }

  /// A tensor plus or minus one constant value, requantized per tensor (a decoder's score
  /// offset): the elementwise loop with every constant folded in.
  template <auto const& T>
  static constexpr bool adds_one_constant = [] {
    if constexpr (b_is_constant && Op != kernels::reference::binary_op::mul) {
      return A.b_shape.elements() == 1 && T[A.a].dims == T[A.output].dims &&
             (!Requant.params().enabled || Requant.params().length == 1);
    } else {
      return false;
    }
  }();

  /// adds_one_constant's loop over `count` values.
  template <auto const& T>
  static void add_one_constant(std::int64_t count, const a_t<T>* a, out_t<T>* y) {
    constexpr std::int32_t c = static_cast<std::int32_t>(ConstantB.values[0]) + A.b_offset;
    for (std::int64_t i = 0; i < count; ++i) {
      const std::int32_t x = static_cast<std::int32_t>(a[i]) + A.a_offset;
      const std::int32_t v = Op == kernels::reference::binary_op::add ? x + c : x - c;
      if constexpr (is_none<Requant>) {
        y[i] = static_cast<out_t<T>>(v);
      } else {  // requant_params::apply with its one entry
        y[i] = static_cast<out_t<T>>(requantize(v, Requant.mul[0], Requant.add[0], Requant.shift, Requant.lo,
                                                Requant.hi, Requant.mode, Requant.zero_point, Requant.divisor));
      }
    }
  }

  /// Over the first `length` positions (runtime/sequence_executor.hpp): adds_one_constant's loop,
  /// else the reference kernel.
  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static void run_at(int length, void* const* in, void* const* out, void*) {
    if constexpr (adds_one_constant<T>) {
      add_one_constant<T>(live_dims(T[A.output], length).elements(), static_cast<const a_t<T>*>(in[0]),
                          static_cast<out_t<T>*>(out[0]));
      return;
    }
    const shape o = live_dims(T[A.output], length);
    const b_t<T>* b = nullptr;
    shape b_live = b_shape<T>();
    if constexpr (b_is_constant) {
      b = ConstantB.data();
    } else {
      b = static_cast<const b_t<T>*>(in[1]);
      b_live = live_dims(T[A.b], length);
    }
    const kernels::reference::binary_dims d{o.rank, o.dims, detail::broadcast_strides(live_dims(T[A.a], length), o),
                                            detail::broadcast_strides(b_live, o), A.a_offset, A.b_offset};
    kernels::reference::binary(Op, d, static_cast<const a_t<T>*>(in[0]), b, Requant.params(),
                               static_cast<out_t<T>*>(out[0]));
  }
};

template <fixed_name Name, binary_attrs A, auto const& ConstantB = none, auto const& Requant = none>
using add = binary_node<kernels::reference::binary_op::add, op_kind::add, Name, A, ConstantB, Requant>;
template <fixed_name Name, binary_attrs A, auto const& ConstantB = none, auto const& Requant = none>
using sub = binary_node<kernels::reference::binary_op::sub, op_kind::sub, Name, A, ConstantB, Requant>;
template <fixed_name Name, binary_attrs A, auto const& ConstantB = none, auto const& Requant = none>
using mul = binary_node<kernels::reference::binary_op::mul, op_kind::mul, Name, A, ConstantB, Requant>;

}  // namespace tessera::op
