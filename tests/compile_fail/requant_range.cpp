// expect-error: layer_check_failed<[^,]*"rq"}, tessera::op_kind::requant_shift, tessera::check_error::dtype
// A requantization clamping to [0, 255] cannot store into an s8 tensor.
#include <tessera/tessera.hpp>

inline constexpr tessera::requant_constants<1> rq_u8{{1}, {0}, 0, 0, 255, 1};
inline constexpr tessera::tensor_table<2> tensors{{{
    {"in", tessera::dtype::s32, {1, 4}},
    {"out", tessera::dtype::s8, {1, 4}},
}}};
using net = tessera::network<tensors, tessera::graph_inputs<0>, tessera::graph_outputs<1>,
                             tessera::op::requant_shift<"rq", {.input = 0, .output = 1}, rq_u8>>;
constexpr auto arena = tessera::executor<net>::arena_bytes;
