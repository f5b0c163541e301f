// Integer normalization over the last axis: the dialect's iRMSNorm, iLayerNorm and iNoNorm,
// one node type whose `norm_params` say which (their kernels share the row loop).
//
// Tensors: input int8 or uint8, any shape; output the same shape, int8 (a type holding
// [lo, hi]). Constants `tessera::constant<std::int32_t, N>`: Weight [weight_rows][L] and Bias
// [bias_rows][L] (`tessera::none` for iRMSNorm), L the last dimension; tensor row r reads
// constant row r % rows. A row is never split across tiles: the solver tiles rows only.
#pragma once

#include <cstdint>
#include <type_traits>

#include <tessera/graph/constant.hpp>
#include <tessera/graph/node.hpp>
#include <tessera/kernels/algorithm/normalization.hpp>
#include <tessera/kernels/family.hpp>
#include <tessera/kernels/reference/normalization.hpp>
#include <tessera/planning/tile_geometry.hpp>

namespace tessera::op {

using kernels::reference::norm_kind;
using kernels::reference::norm_params;

struct norm_attrs {
  tensor_id input = 0;
  tensor_id output = 0;
  norm_params params{};
};

constexpr op_kind op_kind_of(norm_kind k) {
  switch (k) {
    case norm_kind::rms: return op_kind::i_rms_norm;
    case norm_kind::layer: return op_kind::i_layer_norm;
    case norm_kind::no_norm: return op_kind::i_no_norm;
  }
  return op_kind::i_rms_norm;
}

template <fixed_name Name, norm_attrs A, auto const& Weight, auto const& Bias = none>
struct normalization : unary_node<Name, op_kind_of(A.params.kind), A> {
  static constexpr std::size_t constant_bytes = Weight.bytes() + Bias.bytes();

  template <auto const& T>
  static constexpr check_result check() {
    const tensor_desc& in = T[A.input];
    const tensor_desc& out = T[A.output];
    if constexpr (is_none<Weight>) {
      return {check_error::constant_size};
    } else {
      static_assert(std::is_same_v<typename std::remove_cvref_t<decltype(Weight)>::value_type, std::int32_t>,
                    "normalization: the weight must be int32");
      if (!tessera::detail::is_8bit(in.type) || A.params.lo < min_of(out.type) || A.params.hi > max_of(out.type) ||
          A.params.lo > A.params.hi)
        return {check_error::dtype};
      if (in.dims.rank < 1) return {check_error::input_rank};
      const std::int64_t length = in.dims.from_back(0);
      const std::int64_t rows = in.dims.elements() / length;
      const auto fits = [&](std::size_t size, std::int32_t constant_rows) {
        return constant_rows >= 1 && rows % constant_rows == 0 &&
               size == static_cast<std::size_t>(constant_rows * length);
      };
      if (!fits(Weight.size(), A.params.weight_rows)) return {check_error::constant_size};
      if constexpr (!is_none<Bias>) {
        if (!fits(Bias.size(), A.params.bias_rows)) return {check_error::constant_size};
      }
      if (A.params.shift < 0 || A.params.shift > 62) return {check_error::constant_size};
      return tessera::detail::expect_shape(out.dims, in.dims);
    }
  }

  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static constexpr std::size_t scratch_bytes() {
    return kernels::reference::norm_scratch_bytes(T[A.input].dims.elements());
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

  /// Rows [first_row, first_row + count) of `length` values: the reference family runs the
  /// reference (the judge), the others the algorithm written once for all
  /// (algorithm/normalization.hpp; bit-exact with it).
  template <kernels::kernel_family F, class TIn, class TOut>
  static void rows(std::int64_t count, std::int32_t length, std::int64_t first_row, const TIn* x, TOut* y) {
    if constexpr (F == kernels::kernel_family::reference || is_none<Weight>) {
      kernels::reference::integer_norm(count, length, first_row, x, Weight.data(), Bias.data(), A.params, y);
    } else {
      constexpr bool fits = kernels::algorithm::norm_products_fit_32(kernels::algorithm::largest_magnitude(Weight.values));
      kernels::algorithm::integer_norm<fits>(count, length, first_row, x, Weight.data(), Bias.data(), A.params, y);
    }
  }

  template <auto const& T, kernels::kernel_family F = kernels::native_family>
  static void run_tile(const tile_args& t) {
    using in_t = storage_t<T[A.input].type>;
    using out_t = storage_t<T[A.output].type>;
    rows<kernels::runnable(F)>(t.h, t.c, t.y0, static_cast<const in_t*>(t.input[0]), static_cast<out_t*>(t.output));
  }

  template <auto const& T, kernels::kernel_family F = kernels::native_family>
  static void run(void* const* in, void* const* out, void*) {
    using in_t = storage_t<T[A.input].type>;
    using out_t = storage_t<T[A.output].type>;
    const shape& s = T[A.input].dims;
    rows<kernels::runnable(F)>(s.elements() / s.from_back(0), s.from_back(0), 0, static_cast<const in_t*>(in[0]),
                               static_cast<out_t*>(out[0]));
  }
};

}  // namespace tessera::op
