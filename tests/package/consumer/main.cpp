// Smallest real use: a two-node network, planned and run; exit code 0 when the result is right.
#include <tessera/tessera.hpp>

inline constexpr tessera::constant<std::int8_t, 4> weights{{1, 2, 3, 4}};
inline constexpr tessera::requant_constants<1> requant{{1}, {0}, 1, -128, 127, 1};
inline constexpr tessera::tensor_table<3> tensors{{{
    {"x", tessera::dtype::s8, {1, 2}},
    {"acc", tessera::dtype::s32, {1, 2}},
    {"y", tessera::dtype::s8, {1, 2}},
}}};
using network = tessera::network<tensors, tessera::graph_inputs<0>, tessera::graph_outputs<2>,
                                 tessera::op::gemm<"fc", {.input = 0, .output = 1, .n = 2, .k = 2}, weights>,
                                 tessera::op::requant_shift<"rq", {.input = 1, .output = 2}, requant>>;
using run = tessera::executor<network>;
static_assert(run::arena_bytes == 16);

int main() {
  alignas(16) static std::byte arena[run::arena_bytes];
  const std::int8_t x[2] = {10, -3};
  std::int8_t y[2] = {};
  run::run(arena, {x}, {y});
  // fc: [1*10 + 2*-3, 3*10 + 4*-3] = [4, 18]; requant >> 1 with rounding: [2, 9]
  return (y[0] == 2 && y[1] == 9) ? 0 : 1;
}
