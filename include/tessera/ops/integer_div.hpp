// IntegerDiv node (Deeploy's integer dialect): y = round_half_away(Delta*eta*a / (eta*b + eps))
// with numpy broadcasting, int32, or a fused RequantShift (RQIntegerDiv).
//
// Tensors: a and b of any integer type and rank <= 5 (missing leading dims broadcast), both
// in the same physical layout (onnx2hpp keeps them row-major); output the broadcast shape.
// Runs in place (no tiling).
#pragma once

#include <cstdint>

#include <tessera/graph/constant.hpp>
#include <tessera/graph/node.hpp>
#include <tessera/kernels/family.hpp>
#include <tessera/kernels/reference/integer_div.hpp>
#include <tessera/ops/binary.hpp>

namespace tessera::op {

struct integer_div_attrs {
  tensor_id a = 0;
  tensor_id b = 0;
  tensor_id output = 0;
  std::int32_t delta = 1;
  std::int32_t eps = 0;
  std::int32_t eta = 1;
};

template <fixed_name Name, integer_div_attrs A, auto const& Requant = none>
struct integer_div {
  static constexpr fixed_name name = Name;
  static constexpr op_kind kind = op_kind::integer_div;
  static constexpr integer_div_attrs attrs = A;
  static constexpr std::array<tensor_id, 2> inputs{A.a, A.b};
  static constexpr std::array<tensor_id, 1> outputs{A.output};
  static constexpr bool is_alias = false;
  static constexpr std::size_t constant_bytes = Requant.bytes();
  static constexpr kernels::reference::integer_div_params params{A.delta, A.eps, A.eta};

  template <auto const& T>
  static constexpr kernels::reference::binary_dims dims() {
    return dims_of(T[A.a].dims, T[A.b].dims, T[A.output].dims);
  }
  static constexpr kernels::reference::binary_dims dims_of(const shape& a, const shape& b, const shape& out) {
    return {out.rank, out.dims, detail::broadcast_strides(a, out), detail::broadcast_strides(b, out), 0, 0};
  }

  template <auto const& T>
  static constexpr check_result check() {
    const tensor_desc& out = T[A.output];
    shape expected;
    if (!detail::broadcast_shape(T[A.a].dims, T[A.b].dims, expected)) return {check_error::input_shape};
    if (!output_type_fits<Requant>(out.type)) return {check_error::dtype};
    if (out.state || !tessera::detail::follows_sequence(T[A.a], out) || !tessera::detail::follows_sequence(T[A.b], out) ||
        !tessera::detail::requant_fits_sequence(Requant.params(), out))
      return {check_error::sequence};
    // The 64-bit numerator Delta*eta*a, and a raw int32 quotient: |y| <= |num| + 1 whatever
    // the denominator (|den| >= 1 when it is not 0).
    const std::int64_t numerator =
        std::int64_t{A.delta < 0 ? -A.delta : A.delta} * (A.eta < 0 ? -A.eta : A.eta) *
        tessera::detail::largest_magnitude(T[A.a].type);
    if (numerator > (std::int64_t{1} << 62)) return {check_error::dtype};
    if (numerator + 1 > (is_none<Requant> ? std::int64_t{INT32_MAX} : std::int64_t{1} << 31)) return {check_error::dtype};
    return tessera::detail::expect_shape(out.dims, expected);
  }

  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static constexpr std::size_t scratch_bytes() {
    return kernels::reference::integer_div_scratch_bytes(dims<T>());
  }
  template <auto const&>
  static constexpr std::int64_t macs() { return 0; }

  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static void run(void* const* in, void* const* out, void*) {
    using a_t = storage_t<T[A.a].type>;
    using b_t = storage_t<T[A.b].type>;
    using out_t = storage_t<T[A.output].type>;
    static constexpr auto d = dims<T>();
    kernels::reference::integer_div(d, static_cast<const a_t*>(in[0]), static_cast<const b_t*>(in[1]), params,
                                    Requant.params(), static_cast<out_t*>(out[0]));
  }
  /// Over the first `length` positions (runtime/sequence_executor.hpp).
  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static void run_at(int length, void* const* in, void* const* out, void*) {
    using a_t = storage_t<T[A.a].type>;
    using b_t = storage_t<T[A.b].type>;
    using out_t = storage_t<T[A.output].type>;
    const auto d = dims_of(live_dims(T[A.a], length), live_dims(T[A.b], length), live_dims(T[A.output], length));
    kernels::reference::integer_div(d, static_cast<const a_t*>(in[0]), static_cast<const b_t*>(in[1]), params,
                                    Requant.params(), static_cast<out_t*>(out[0]));
  }
};

}  // namespace tessera::op
