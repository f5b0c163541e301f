// What every node type of the graph provides, and the result of its compile-time check.
//
// A node type is a class template over a `fixed_name`, a plain attribute struct (tensor ids
// and op parameters) and references to its constant data. It exposes:
//   name, kind, inputs, outputs          : identity and the tensor ids it reads and writes
//   check<Tensors>()                     : shape/type validation against the tensor table
//   scratch_bytes<Tensors, Family>()     : from the kernel's own scratch-size function
//   macs<Tensors>(), constant_bytes      : for reports and benchmarks
//   run<Tensors, Family>(in, out, scratch): calls the kernel family's kernel (or the reference
//                                          where the family declines the case) on physical buffers
// and, for layers that tile through L1, tile_geometry_of<Tensors>(), run_tile<Tensors, Family>()
// and tile_scratch<Tensors, Family>(geometry, tile). Optionally, for a flat plan within a RAM
// budget (planning/ram_budget.hpp): lean_scratch_bytes<Tensors, Family>() and
// run_lean<Tensors, Family>() (a variant with less scratch), and writes_in_place<Tensors,
// Family>() (the kernel may write output 0 over input 0).
// Nothing here is virtual: the executor walks the node types at compile time.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>

#include <tessera/core/fixed_name.hpp>
#include <tessera/core/shape.hpp>
#include <tessera/graph/sequence.hpp>
#include <tessera/graph/tensor.hpp>

namespace tessera {

enum class op_kind : std::uint8_t {
  conv,
  gemm,
  matmul,
  add,
  sub,
  mul,
  max_pool,
  average_pool,
  pad,
  reshape,
  concat,
  slice,
  transpose,
  requant_shift,
  lookup_table,
  hardswish,
  gelu,
  reduce_sum,
  reduce_mean,
  integer_div,
  gather,
  i_softmax,
  ita_max,
  ita_partial_max,
  i_rms_norm,
  i_layer_norm,
  i_no_norm,
  resize,
  requantized_add,  ///< an Add whose operands are requantized first (ops/requantized_add.hpp)
};

constexpr const char* name_of(op_kind k) {
  switch (k) {
    case op_kind::conv: return "Conv";
    case op_kind::gemm: return "Gemm";
    case op_kind::matmul: return "MatMul";
    case op_kind::add: return "Add";
    case op_kind::sub: return "Sub";
    case op_kind::mul: return "Mul";
    case op_kind::max_pool: return "MaxPool";
    case op_kind::average_pool: return "AveragePool";
    case op_kind::pad: return "Pad";
    case op_kind::reshape: return "Reshape";
    case op_kind::concat: return "Concat";
    case op_kind::slice: return "Slice";
    case op_kind::transpose: return "Transpose";
    case op_kind::requant_shift: return "RequantShift";
    case op_kind::lookup_table: return "LookupTable";
    case op_kind::hardswish: return "iHardswish";
    case op_kind::gelu: return "iGELU";
    case op_kind::reduce_sum: return "ReduceSum";
    case op_kind::reduce_mean: return "ReduceMean";
    case op_kind::integer_div: return "IntegerDiv";
    case op_kind::gather: return "Gather";
    case op_kind::i_softmax: return "iSoftmax";
    case op_kind::ita_max: return "ITAMax";
    case op_kind::ita_partial_max: return "ITAPartialMax";
    case op_kind::i_rms_norm: return "iRMSNorm";
    case op_kind::i_layer_norm: return "iLayerNorm";
    case op_kind::i_no_norm: return "iNoNorm";
    case op_kind::resize: return "Resize";
    case op_kind::requantized_add: return "RequantizedAdd";
  }
  return "?";
}

/// Why a node does not fit its tensors; `none` when it does.
enum class check_error : std::uint8_t {
  none,
  output_shape,        ///< computed output shape differs from the declared tensor
  input_rank,          ///< an input has a rank the op does not accept
  input_shape,         ///< inputs disagree (channels, K of a product, broadcasting, ...)
  constant_size,       ///< a weight/bias/requant table has the wrong number of entries
  dtype,               ///< a tensor's element type does not suit the op
  constant_value,      ///< a constant holds a value the attributes exclude (weights declared ternary)
  sequence,            ///< a run-time sequence length the node cannot follow (graph/sequence.hpp): the
                       ///< op has no `run_at`, or its tensors' sequence axes or state disagree
};

struct check_result {
  check_error error = check_error::none;
  shape expected{};  ///< shape the op computes (for output_shape)
  constexpr bool ok() const { return error == check_error::none; }
};

template <class N>
concept graph_node = requires {
  { N::name } -> std::convertible_to<fixed_name>;
  { N::kind } -> std::convertible_to<op_kind>;
  N::inputs.size();
  N::outputs.size();
  { N::constant_bytes } -> std::convertible_to<std::size_t>;
  { N::is_alias } -> std::convertible_to<bool>;
};

namespace detail {
/// Position of the first false entry, or N when every entry holds.
template <std::size_t N>
constexpr std::size_t first_false(const std::array<bool, N>& each) {
  for (std::size_t i = 0; i < N; ++i) {
    if (!each[i]) return i;
  }
  return N;
}
}  // namespace detail

/// Every type of a pack a graph_node. Checked as an array of the concept's results, not as the
/// fold that a constrained pack (`graph_node... Nodes`) is: clang refuses a fold of more than 256
/// operands (its -fbracket-depth), and exported networks have more nodes (MobileNetV3: 330).
template <class... Ns>
concept graph_nodes = detail::first_false<sizeof...(Ns)>({graph_node<Ns>...}) == sizeof...(Ns);

namespace detail {
/// Checks the declared output against the computed shape; the common tail of most checks.
constexpr check_result expect_shape(const shape& declared, const shape& computed) {
  if (declared == computed) return {};
  return {check_error::output_shape, computed};
}
constexpr bool is_8bit(dtype d) { return d == dtype::s8 || d == dtype::u8; }
/// max |v| over the values v of a dtype.
constexpr std::int64_t largest_magnitude(dtype d) { return -min_of(d) > max_of(d) ? -min_of(d) : max_of(d); }
}  // namespace detail

}  // namespace tessera

namespace tessera {

/// What every node with one input and one output tensor (`Attrs.input`, `Attrs.output`)
/// declares the same way; a node type derives from it and hides what it does differently
/// (`is_alias`, `macs`, `constant_bytes`).
template <fixed_name Name, op_kind Kind, auto Attrs>
struct unary_node {
  static constexpr fixed_name name = Name;
  static constexpr op_kind kind = Kind;
  static constexpr auto attrs = Attrs;
  static constexpr std::array<tensor_id, 1> inputs{Attrs.input};
  static constexpr std::array<tensor_id, 1> outputs{Attrs.output};
  static constexpr bool is_alias = false;
  static constexpr std::size_t constant_bytes = 0;

  template <auto const&>
  static constexpr std::int64_t macs() {
    return 0;
  }
};

}  // namespace tessera
