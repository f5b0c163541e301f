// expect-error: layer_check_failed<[^,]*"first_bad"}, tessera::op_kind::requant_shift, tessera::check_error::dtype
// forbid-error: layer_check_failed<[^,]*"second_bad"|nesting limit|bracket-depth
// A network of 300 nodes (more than clang's 256 fold operands) with two bad layers: the build
// stops at the diagnostic naming the first (node 280) and at no other; the node pack is checked
// without a fold (graph_nodes, network::layers_valid).
#include <cstddef>
#include <type_traits>
#include <utility>

#include <tessera/tessera.hpp>

namespace {
constexpr std::size_t nodes = 300;
constexpr std::size_t first_bad = 280;   // s32 -> s8 requantization clamping to [0, 255]
constexpr std::size_t second_bad = 290;  // a reshape to fewer elements

inline constexpr tessera::requant_constants<1> rq_u8{{1}, {0}, 0, 0, 255, 1};
inline constexpr auto tensors = [] {
  tessera::tensor_table<nodes + 1> t{};
  for (std::size_t i = 0; i <= nodes; ++i) {
    t.tensors[i].name = tessera::fixed_name{"t"};
    t.tensors[i].type = i <= first_bad ? tessera::dtype::s32 : tessera::dtype::s8;
    t.tensors[i].dims = i <= second_bad ? tessera::shape{1, 4} : tessera::shape{1, 2};
  }
  return t;
}();

template <std::size_t I>
using link = std::conditional_t<
    I == first_bad,
    tessera::op::requant_shift<"first_bad", {.input = I, .output = I + 1}, rq_u8>,
    std::conditional_t<I == second_bad, tessera::op::reshape<"second_bad", {.input = I, .output = I + 1}>,
                       tessera::op::reshape<"r", {.input = I, .output = I + 1}>>>;

template <std::size_t... I>
auto chain(std::index_sequence<I...>)
    -> tessera::network<tensors, tessera::graph_inputs<0>, tessera::graph_outputs<nodes>, link<I>...>;
using net = decltype(chain(std::make_index_sequence<nodes>{}));
}  // namespace
constexpr auto arena = tessera::executor<net>::arena_bytes;
