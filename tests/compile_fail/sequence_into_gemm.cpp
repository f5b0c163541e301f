// expect-error: layer_check_failed<[^,]*"proj"}, tessera::op_kind::gemm, tessera::check_error::sequence
// A Gemm reading attention scores whose extent is a run-time sequence length
// (graph/sequence.hpp): the Gemm has no run_at, so it would run over the capacity's positions;
// one diagnostic naming the layer.
#include <tessera/tessera.hpp>

inline constexpr tessera::constant<std::int8_t, 32> w{{}};
inline constexpr tessera::tensor_table<5> tensors{{{
    {"q", tessera::dtype::s8, {1, 1, 4}},
    {"k_rows", tessera::dtype::s8, {1, 1, 4}},
    {"k_cache", tessera::dtype::s8, {1, 8, 4}, 1, true},
    {"scores", tessera::dtype::s32, {1, 1, 8}, 2},
    {"proj", tessera::dtype::s32, {1, 1, 4}},
}}};
using net = tessera::network<tensors, tessera::graph_inputs<0, 1>, tessera::graph_outputs<4, 2>,
                             tessera::op::state_append<"append", {.rows = 1, .state = 2, .axis = 1}>,
                             tessera::op::matmul<"scores", {.a = 0, .b = 2, .output = 3, .b_transposed = true}>,
                             tessera::op::gemm<"proj", {.input = 3, .output = 4, .n = 4, .k = 8}, w>>;
constexpr auto arena = tessera::sequence_executor<net>::arena_bytes;
