// iGELU node (Deeploy's integer dialect): y = x * ((one + L) >> 1) with
// L = sign(x) * (one - (min(|x|, -b) + b)^2), int32, or a fused RequantShift (RequantizediGELU:
// onnx2hpp fuses the RequantShift that follows, as it does for a Conv).
//
// Tensors: input of any integer type and shape; output the same shape, int32 without a
// requant, else a type that holds the requant's clamp range.
#pragma once

#include <cstdint>

#include <tessera/graph/constant.hpp>
#include <tessera/graph/node.hpp>
#include <tessera/kernels/family.hpp>
#include <tessera/kernels/reference/gelu.hpp>
#include <tessera/planning/tile_geometry.hpp>

namespace tessera::op {

struct gelu_attrs {
  tensor_id input = 0;
  tensor_id output = 0;
  std::int32_t b = 0;  ///< negative
  std::int32_t one = 0;
};

template <fixed_name Name, gelu_attrs A, auto const& Requant = none>
struct gelu : unary_node<Name, op_kind::gelu, A> {
  static constexpr std::size_t constant_bytes = Requant.bytes();
  static constexpr kernels::reference::gelu_params params{A.b, A.one};

  template <auto const& T>
  static constexpr check_result check() {
    const tensor_desc& in = T[A.input];
    const tensor_desc& out = T[A.output];
    if (!output_type_fits<Requant>(out.type)) return {check_error::dtype};
    if (A.b >= 0 || A.one < 0 || std::int64_t{A.b} * A.b > std::int64_t{INT32_MAX}) return {check_error::dtype};
    // |y| <= |x| * (one + max(one, b*b)) / 2 must fit int32 when y is stored raw, and 2^31
    // under a requant (whose 64-bit y * mul then cannot overflow).
    const std::int64_t b2 = std::int64_t{A.b} * A.b;
    const std::int64_t largest =
        tessera::detail::largest_magnitude(in.type) * ((A.one + (b2 > A.one ? b2 : std::int64_t{A.one})) / 2 + 1);
    if (largest > (is_none<Requant> ? std::int64_t{INT32_MAX} : std::int64_t{1} << 31)) return {check_error::dtype};
    return tessera::detail::expect_shape(out.dims, in.dims);
  }

  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static constexpr std::size_t scratch_bytes() {
    return kernels::reference::gelu_scratch_bytes(T[A.input].dims.elements());
  }

  /// Tiles as rows of {elements / C, C}, C the last dimension (per-channel requants of
  /// another layout run in place).
  template <auto const& T>
  static constexpr tile_geometry tile_geometry_of() {
    const shape& s = T[A.input].dims;
    const int c = s.from_back(0);
    const bool tileable = requant_tiles(Requant.params().length, Requant.params().inner, c, 1) &&
                          Requant.params().inner == 1;
    return elementwise_rows(s.elements(), c, tileable ? tiling_kind::tiled : tiling_kind::in_place,
                            static_cast<int>(size_of(T[A.input].type)), static_cast<int>(size_of(T[A.output].type)));
  }

  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static void run_tile(const tile_args& t) {
    using in_t = storage_t<T[A.input].type>;
    using out_t = storage_t<T[A.output].type>;
    kernels::reference::gelu(
        std::int64_t{t.h} * t.c, static_cast<const in_t*>(t.input[0]), params,
        requant_for_tile(Requant.params(), T[A.input].dims.from_back(0), t.y0, t.c0, t.h, t.c),
        static_cast<out_t*>(t.output));
  }

  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static void run(void* const* in, void* const* out, void*) {
    using in_t = storage_t<T[A.input].type>;
    using out_t = storage_t<T[A.output].type>;
    kernels::reference::gelu(T[A.input].dims.elements(), static_cast<const in_t*>(in[0]), params,
                                  Requant.params(), static_cast<out_t*>(out[0]));
  }
};

}  // namespace tessera::op
