// expect-error: layer_check_failed<[^,]*"fc"}, tessera::op_kind::gemm, tessera::check_error::constant_size
// Gemm weights with the wrong number of entries.
#include <tessera/tessera.hpp>

inline constexpr tessera::constant<std::int8_t, 15> w{};
inline constexpr tessera::tensor_table<2> tensors{{{
    {"in", tessera::dtype::s8, {1, 8}},
    {"out", tessera::dtype::s32, {1, 2}},
}}};
using net = tessera::network<tensors, tessera::graph_inputs<0>, tessera::graph_outputs<1>,
                             tessera::op::gemm<"fc", {.input = 0, .output = 1, .n = 2, .k = 8}, w>>;
constexpr auto arena = tessera::executor<net>::arena_bytes;
