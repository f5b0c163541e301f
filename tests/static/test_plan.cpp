// Compile-only tests of shapes, buffer sizes and the arena plan: this file compiling is the test.
#include <tessera/planning/bidirectional_stack.hpp>
#include <tessera/tessera.hpp>

#include "../support/tiny_networks.hpp"

namespace {

using tiny::residual::network;
constexpr auto plan = tessera::arena_plan_of<network>;

// Shapes and sizes are compile-time constants.
static_assert(network::tensors[1].bytes() == 32);
static_assert(network::tensors[2].bytes() == 128);
static_assert(network::node_count == 5);
static_assert(network::macs() == 4 * 4 * 2 * 9 + 4 * 4 * 2 * 2 + 3 * 32);
static_assert(network::constant_bytes() == 18 + 8 + 16 + 4 + 8 + 96);
static_assert(std::is_same_v<network::input_t<0>, std::uint8_t>);
static_assert(std::is_same_v<network::output_t<0>, std::int32_t>);
static_assert(network::input_elements<0> == 16);

// Graph inputs and outputs are caller buffers; "unused" is never touched.
static_assert(plan.tensor_offset[0] == tessera::arena_plan<7, 5>::caller_buffer);
static_assert(plan.tensor_offset[5] == tessera::arena_plan<7, 5>::caller_buffer);

// "a" (32 B) lives through the add, with "b" (128 B); "sum" is written while both are read,
// so all three are disjoint: 128 + 32 + 32 bytes (16-aligned). "flat" aliases "sum".
constexpr bool disjoint(int x, int y) {
  const auto bx = plan.tensor_offset[static_cast<std::size_t>(x)];
  const auto by = plan.tensor_offset[static_cast<std::size_t>(y)];
  return bx + static_cast<std::int64_t>(network::tensors[x].bytes()) <= by ||
         by + static_cast<std::int64_t>(network::tensors[y].bytes()) <= bx;
}
static_assert(disjoint(1, 2) && disjoint(1, 3) && disjoint(2, 3));
static_assert(plan.tensor_offset[4] == plan.tensor_offset[3]);
static_assert(plan.lower_bound_bytes == 128 + 32 + 32);
static_assert(plan.arena_bytes == 192);
static_assert(tessera::executor<network>::arena_bytes == 192);

// A chain reuses memory: a 3-conv chain needs two buffers, not three.
namespace chain {
inline constexpr tessera::constant<std::int8_t, 4> w{{1, 0, 0, 1}};
inline constexpr tessera::tensor_table<5> tensors{{{
    {"in", tessera::dtype::s32, {1, 8, 8, 2}},
    {"t1", tessera::dtype::s32, {1, 8, 8, 2}},
    {"t2", tessera::dtype::s32, {1, 8, 8, 2}},
    {"t3", tessera::dtype::s32, {1, 8, 8, 2}},
    {"out", tessera::dtype::s32, {1, 8, 8, 2}},
}}};
using net = tessera::network<tensors, tessera::graph_inputs<0>, tessera::graph_outputs<4>,
                             tessera::op::add<"a1", {.a = 0, .b = 0, .output = 1}>,
                             tessera::op::add<"a2", {.a = 1, .b = 1, .output = 2}>,
                             tessera::op::add<"a3", {.a = 2, .b = 2, .output = 3}>,
                             tessera::op::add<"a4", {.a = 3, .b = 3, .output = 4}>>;
constexpr auto p = tessera::arena_plan_of<net>;
static_assert(p.arena_bytes == 2 * 512);
static_assert(p.lower_bound_bytes == 2 * 512);
static_assert(p.tensor_offset[1] == p.tensor_offset[3]);
}  // namespace chain

// Output extent rule (floor), e.g. 32 + 1 + 1 - (3 - 1) - 1 = 31, 31 / 2 + 1 = 16.
static_assert(tessera::window::output_extent(32, 1, 1, 3, 2, 1) == 16);
static_assert(tessera::window::output_extent(64, 0, 0, 8, 2, 1) == 29);
static_assert(tessera::window::output_extent(10, 4, 5, 10, 2, 1) == 5);

// The requantization rule: half-up rounding through an arithmetic shift.
static_assert(tessera::requantize(-3, 1, 0, 1, -128, 127) == -1);  // (-3 + 1) >> 1
static_assert(tessera::requantize(3, 1, 0, 1, -128, 127) == 2);    // (3 + 1) >> 1
static_assert(tessera::requantize(1000, 1, 0, 0, 0, 255) == 255);  // clamp
static_assert(tessera::requantize(100'000'000, 130'000'000, 0, 40, -128, 127) == 127);  // needs 64 bits

// Origins map logical (NCHW) indices to physical (NHWC) ones.
constexpr tessera::tensor_origin nchw{"x", 0, "", {1, 3, 2, 2}, {1, 3, 2, 2}, {0, 2, 3, 1, 4}};
static_assert(nchw.physical_index(0) == 0);
static_assert(nchw.physical_index(1) == 3);   // c0 h0 w1 -> (h0 w1 c0) = 1 * 3
static_assert(nchw.physical_index(4) == 1);   // c1 h0 w0
static_assert(nchw.physical_index(11) == 11);

}  // namespace

// DORY's bidirectional stack on the residual block: "a" (32) and "b" (128) are both live at
// the add, which pushes "sum" (32): 192 bytes, the same as the greedy plan here.
static_assert(tessera::bidirectional_stack_peak(tiny::residual::network::summary) == 192);
static_assert(tessera::bidirectional_stack_peak(chain::net::summary) == 2 * 512);

// Twin networks: value-identical graphs in two namespaces (as a test builds a model fused and
// unfused), so the planner runs twice with the same template arguments. Guards a GCC 12 bug
// that dropped non-zero default member initializers on the second evaluation and planned an
// empty arena (see planning_detail::buffer).
namespace twin_a {
inline constexpr tessera::tensor_table<4> tensors{{{{"x", tessera::dtype::u8, {1, 16}},
                                                    {"y", tessera::dtype::u8, {1, 16}},
                                                    {"s", tessera::dtype::s32, {1, 16}},
                                                    {"o", tessera::dtype::s32, {1, 16}}}}};
using net = tessera::network<tensors, tessera::graph_inputs<0, 1>, tessera::graph_outputs<3>,
                             tessera::op::add<"add", {.a = 0, .b = 1, .output = 2}>,
                             tessera::op::reshape<"identity", {.input = 2, .output = 3}>>;
}  // namespace twin_a
namespace twin_b {
inline constexpr tessera::tensor_table<4> tensors = twin_a::tensors;
using net = tessera::network<tensors, tessera::graph_inputs<0, 1>, tessera::graph_outputs<3>,
                             tessera::op::add<"add", {.a = 0, .b = 1, .output = 2}>,
                             tessera::op::reshape<"identity", {.input = 2, .output = 3}>>;
}  // namespace twin_b
static_assert(tessera::arena_plan_of<twin_a::net>.arena_bytes == 64);
static_assert(tessera::arena_plan_of<twin_b::net>.arena_bytes == 64);

// Sizes in 64 bits (issue 16, item 3): a Pad to 65536 x 65537 bytes (4 GiB, from a one-byte
// input) is a valid network where std::size_t has 64 bits, and fails check_graph where it has 32
// (graph_check_failed<tensor_too_large, -1, 1>) instead of wrapping to a one-byte tensor.
namespace huge_pad {
inline constexpr tessera::tensor_table<2> tensors{{{{"x", tessera::dtype::s8, {1, 1, 1, 1}},
                                                    {"y", tessera::dtype::s8, {1, 65536, 65537, 1}}}}};
using net = tessera::network<tensors, tessera::graph_inputs<0>, tessera::graph_outputs<1>,
                             tessera::op::pad<"pad", {.input = 0, .output = 1, .after = {0, 65535, 65536, 0}}>>;
constexpr std::int64_t gib2 = (std::int64_t{1} << 31) - 1;  // what a 32-bit core addresses (addressable_bytes)
}  // namespace huge_pad
static_assert(huge_pad::tensors[1].byte_count() == std::int64_t{65536} * 65537);
static_assert(sizeof(std::size_t) < 8 || tessera::check_graph(huge_pad::net::summary).error == tessera::graph_error::none);
static_assert(tessera::check_graph(huge_pad::net::summary, huge_pad::gib2).error == tessera::graph_error::tensor_too_large);
static_assert(tessera::check_graph(huge_pad::net::summary, huge_pad::gib2).tensor == 1);
// Saturated, not wrapped: eight dimensions of 2^31 - 1 bytes.
static_assert(tessera::tensor_desc{"z", tessera::dtype::s32, {2147483647, 2147483647, 2147483647, 2147483647}}.byte_count() ==
              std::numeric_limits<std::int64_t>::max());

// On a two-level target an L2 that the bytes live at one step and the caller's buffers already
// exceed is reported before any tile is solved (planning_detail::l2_fails_untiled): the residual
// block's add has 192 bytes live, plus 28 of input and output, against a 200-byte L2. Its
// conv_a's smallest tile (96 bytes) does not fit a 64-byte L1 either; with a roomy L2 that is
// the failure named, with this L2 it is L2, and no layer problem is posed.
namespace l2_first {
constexpr const auto& residual = tiny::residual::network::summary;
inline constexpr tessera::target_desc both_small{
    .name = "both-small", .levels = {{{"L1", 64, 8, 1, 1}, {"L2", 200, 8, 1, 1}}}, .level_count = 2};
inline constexpr tessera::target_desc l1_small{
    .name = "l1-small", .levels = {{{"L1", 64, 8, 1, 1}, {"L2", 4096, 8, 1, 1}}}, .level_count = 2};
static_assert(tessera::planning_detail::l2_fails_untiled(residual, both_small));
static_assert(!tessera::planning_detail::l2_fails_untiled(residual, l1_small));
constexpr auto both = tessera::plan_for(residual, both_small);
static_assert(!both.fits && both.failing_level == 1 && both.failing_node == 2 && both.needed == 220 &&
              both.available == 200 && both.l1_minimum == 0);
static_assert([] {
  for (const auto& p : tessera::layer_problems_of(residual, both_small))
    if (p.tiled) return false;
  return true;
}());
constexpr auto l1 = tessera::plan_for(residual, l1_small);
static_assert(!l1.fits && l1.failing_level == 0 && l1.failing_node == 0 && l1.needed == 96 && l1.available == 64);
}  // namespace l2_first
