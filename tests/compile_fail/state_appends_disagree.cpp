// expect-error: state_rule_failed<tessera::detail::state_rule::appends_add_different_rows>
// Two caches of one state grown by different numbers of rows per call: the state has one
// length, so the sequence executor names the rule the network breaks.
#include <tessera/tessera.hpp>

inline constexpr tessera::tensor_table<4> tensors{{{
    {"k_rows", tessera::dtype::s8, {1, 1, 4}},
    {"v_rows", tessera::dtype::s8, {1, 2, 4}},
    {"k_cache", tessera::dtype::s8, {1, 8, 4}, 1, true},
    {"v_cache", tessera::dtype::s8, {1, 8, 4}, 1, true},
}}};
using net = tessera::network<tensors, tessera::graph_inputs<0, 1>, tessera::graph_outputs<2, 3>,
                             tessera::op::state_append<"append_k", {.rows = 0, .state = 2, .axis = 1}>,
                             tessera::op::state_append<"append_v", {.rows = 1, .state = 3, .axis = 1}>>;
constexpr auto arena = tessera::sequence_executor<net>::arena_bytes;
