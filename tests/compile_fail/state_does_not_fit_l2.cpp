// expect-error: does_not_fit<[^,]*"append_k"}, [^,]*"L2"}, 260, 200>
// A KV cache kept in place on a tiled target: the state is the caller's and lives in L2 beside
// the plan's buffers, so the L2 check counts it at its capacity (64 positions x 4 bytes) with the
// call's input rows (4 bytes): 260 bytes exceed a 200-byte L2.
#include <tessera/tessera.hpp>

inline constexpr tessera::tensor_table<2> tensors{{{
    {"k_rows", tessera::dtype::s8, {1, 1, 4}},
    {"k_cache", tessera::dtype::s8, {1, 64, 4}, 1, true},
}}};
using net = tessera::network<tensors, tessera::graph_inputs<0>, tessera::graph_outputs<1>,
                             tessera::op::state_append<"append_k", {.rows = 0, .state = 1, .axis = 1}>>;
inline constexpr tessera::target_desc small_l2{
    .name = "small-l2", .levels = {{{"L1", 4096, 8, 1, 1}, {"L2", 200, 8, 1, 1}}}, .level_count = 2};
using run = tessera::tiled_executor<net, tessera::target<small_l2>>;
constexpr auto bytes = run::l2_bytes;
