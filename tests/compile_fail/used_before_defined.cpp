// expect-error: graph_check_failed<tessera::graph_error::used_before_defined, 0, 1>
// Nodes out of order: node 0 reads tensor 1, which node 1 writes.
#include <tessera/tessera.hpp>

inline constexpr tessera::tensor_table<3> tensors{{{
    {"in", tessera::dtype::s32, {1, 4}},
    {"mid", tessera::dtype::s32, {1, 4}},
    {"out", tessera::dtype::s32, {1, 4}},
}}};
using net = tessera::network<tensors, tessera::graph_inputs<0>, tessera::graph_outputs<2>,
                             tessera::op::add<"second", {.a = 1, .b = 1, .output = 2}>,
                             tessera::op::add<"first", {.a = 0, .b = 0, .output = 1}>>;
constexpr auto arena = tessera::executor<net>::arena_bytes;
