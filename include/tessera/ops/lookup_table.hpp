// Table lookup node: y = table[x - min(x's type)] elementwise, for an 8-bit input. onnx2hpp
// lowers quantized Sigmoid (QLinearSigmoid, or DequantizeLinear -> Sigmoid -> QuantizeLinear),
// and the other cheap unary float ops between a DequantizeLinear and a QuantizeLinear, to it:
// the converter evaluates the float function on all 256 inputs, so the result is exactly the
// ONNX float reference and the device does one load per element.
//
// Tensors: input int8 or uint8, any shape; output the same shape, of the table's element type
// (int8 or uint8). Table: `tessera::constant<TOut, 256>`, entry k for input value min + k.
#pragma once

#include <type_traits>

#include <tessera/graph/constant.hpp>
#include <tessera/graph/node.hpp>
#include <tessera/kernels/family.hpp>
#include <tessera/kernels/reference/lookup_table.hpp>
#include <tessera/planning/tile_geometry.hpp>

namespace tessera::op {

struct lookup_table_attrs {
  tensor_id input = 0;
  tensor_id output = 0;
};

template <fixed_name Name, lookup_table_attrs A, auto const& Table>
struct lookup_table : unary_node<Name, op_kind::lookup_table, A> {
  static constexpr std::size_t constant_bytes = Table.bytes();

  template <auto const& T>
  static constexpr check_result check() {
    const tensor_desc& in = T[A.input];
    const tensor_desc& out = T[A.output];
    if constexpr (is_none<Table>) {
      return {check_error::constant_size};
    } else {
      if (Table.size() != kernels::reference::lookup_table_entries) return {check_error::constant_size};
      using table_t = typename std::remove_cvref_t<decltype(Table)>::value_type;
      if (!tessera::detail::is_8bit(in.type) || !tessera::detail::is_8bit(out.type)) return {check_error::dtype};
      if (!(out.type == dtype::s8 ? std::is_same_v<table_t, std::int8_t> : std::is_same_v<table_t, std::uint8_t>))
        return {check_error::dtype};
      return tessera::detail::expect_shape(out.dims, in.dims);
    }
  }

  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static constexpr std::size_t scratch_bytes() {
    return kernels::reference::lookup_table_scratch_bytes(T[A.input].dims.elements());
  }

  /// Tiles as rows of {elements / C, C}, C the last dimension (any split works: elementwise).
  template <auto const& T>
  static constexpr tile_geometry tile_geometry_of() {
    const shape& s = T[A.input].dims;
    return elementwise_rows(s.elements(), s.from_back(0), tiling_kind::tiled, static_cast<int>(size_of(T[A.input].type)),
                            static_cast<int>(size_of(T[A.output].type)));
  }

  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static void run_tile(const tile_args& t) {
    using in_t = storage_t<T[A.input].type>;
    using out_t = storage_t<T[A.output].type>;
    kernels::reference::lookup_table(std::int64_t{t.h} * t.c, static_cast<const in_t*>(t.input[0]), Table.data(),
                                     static_cast<out_t*>(t.output));
  }

  template <auto const& T, kernels::kernel_family = kernels::native_family>
  static void run(void* const* in, void* const* out, void*) {
    using in_t = storage_t<T[A.input].type>;
    using out_t = storage_t<T[A.output].type>;
    kernels::reference::lookup_table(T[A.input].dims.elements(), static_cast<const in_t*>(in[0]), Table.data(),
                                     static_cast<out_t*>(out[0]));
  }
};

}  // namespace tessera::op
