// Planning cost grows about linearly with the graph (issue 16, item 4): a network of 1,500
// layers plans at the compiler's default constexpr limits — the fusion selector, every layer's
// tile and the arena in their constant evaluations (benchmarks/planning/bench_scaling.py measures
// the same for converted models, whole firmware included). Before, the selector asked for each
// pointwise layer who else reads its input by scanning the graph (O(nodes^2)), and the arena
// planner spent about 17,000 GCC operations per buffer on vectors and comparison sorts: both
// exceeded GCC's budget at this size. Clang's step limit (2^20) is tighter: it plans the fused
// chain, and about 1,000 unfused layers (the test asks 800 of it).
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include <tessera/tessera.hpp>

namespace {

// One depthwise -> pointwise block on an 8 x 8 x 8 map, as a network type; its summary is
// repeated below (instantiating 1,500 layer types would measure the front end, not the planner).
namespace block {
inline constexpr tessera::constant<std::int8_t, 8 * 3 * 3> dw_weights{};
inline constexpr tessera::constant<std::int8_t, 8 * 8> pw_weights{};
inline constexpr tessera::requant_constants<1> requant = [] {
  tessera::requant_constants<1> r{};
  r.mul = {1};
  r.shift = 8;
  r.lo = -128;
  r.hi = 127;
  return r;
}();
inline constexpr tessera::tensor_table<3> tensors{{{{"x", tessera::dtype::s8, {1, 8, 8, 8}},
                                                    {"dw", tessera::dtype::s8, {1, 8, 8, 8}},
                                                    {"pw", tessera::dtype::s8, {1, 8, 8, 8}}}}};
using network = tessera::network<
    tensors, tessera::graph_inputs<0>, tessera::graph_outputs<2>,
    tessera::op::conv<"dw",
                      {.input = 0, .output = 1, .kernel_h = 3, .kernel_w = 3, .pad_top = 1, .pad_left = 1,
                       .pad_bottom = 1, .pad_right = 1, .groups = 8},
                      dw_weights, tessera::none, requant>,
    tessera::op::conv<"pw", {.input = 1, .output = 2}, pw_weights, tessera::none, requant>>;
}  // namespace block

/// `Blocks` copies of the block, each reading the one before.
template <std::size_t Blocks>
constexpr auto repeated() {
  constexpr auto& one = block::network::summary;
  tessera::graph_summary<2 * Blocks + 1, 1, 1, 2 * Blocks> g{};
  for (auto& t : g.tensors) t = one.tensors[1];
  g.inputs[0] = 0;
  g.outputs[0] = static_cast<tessera::tensor_id>(2 * Blocks);
  for (std::size_t n = 0; n < 2 * Blocks; ++n) {
    g.nodes[n] = one.nodes[n % 2];
    g.nodes[n].inputs[0] = static_cast<tessera::tensor_id>(n);
    g.nodes[n].outputs[0] = static_cast<tessera::tensor_id>(n + 1);
  }
  return g;
}

constexpr std::size_t blocks = 750;  // 1,500 layers
constexpr auto chain = repeated<blocks>();
constexpr tessera::target_desc stm32h7 = tessera::target<tessera::targets::stm32h7>::desc;

// With fusion (the preset's default): every pair of neighbours is a candidate (each output has
// one reader), depthwise -> pointwise at the odd nodes and pointwise -> depthwise at the even
// ones, 1,499 overlapping candidates; the selector's choice plans. Every layer runs as one
// tile, so with L1 forwarding no block is faster (the results stay in L1 unfused) and the
// selector keeps the chain as it is; without forwarding it fuses, and the fused chain plans.
static_assert([] {
  const auto context = tessera::fusion_detail::block_context_of(chain, stm32h7);
  for (std::size_t n = 0; n < 2 * blocks; ++n)
    if (tessera::fused_producer(chain, stm32h7, n, context) != static_cast<int>(n) - 1) return false;
  return true;
}());
static_assert([] {
  for (int first : tessera::fusion_choice<chain, stm32h7>)
    if (first != 0) return false;
  return true;
}());
constexpr tessera::target_desc fusing_target = [] {
  tessera::target_desc t = stm32h7;
  t.l1_forwarding = false;
  return t;
}();
static_assert([] {
  int fused_blocks = 0;
  for (int first : tessera::fusion_choice<chain, fusing_target>) fused_blocks += first != 0 ? 1 : 0;
  return fused_blocks > 0;
}());
constexpr const auto& fused = tessera::fused_summary<chain, fusing_target>;
constexpr auto fused_plan = tessera::plan_for(fused, fusing_target, tessera::layer_solutions<fused, fusing_target>);
static_assert(fused_plan.fits);

// Without fusion: 1,500 tiled layers (GCC), 1,500 tensors and 1,500 scratch buffers in the arena. A
// chain holds two 512-byte maps and one layer's scratch at a time: the arena is the bound.
constexpr tessera::target_desc unfused_target = [] {
  tessera::target_desc t = stm32h7;
  t.fusion = tessera::fusion_policy::off;
  return t;
}();
#if defined(__clang__)
constexpr auto unfused_chain = repeated<400>();  // 800 layers: clang's 2^20 steps end near 1,000
#else
constexpr const auto& unfused_chain = chain;
#endif
constexpr auto plan =
    tessera::plan_for(unfused_chain, unfused_target, tessera::layer_solutions<unfused_chain, unfused_target>);
static_assert(plan.fits);
static_assert(plan.l2.arena_bytes == plan.l2.aligned_bound_bytes && plan.l2.optimal);
static_assert(plan.l2.arena_bytes >= 2 * 512);
// L1 forwarding (its own constant evaluation, as the tiled executor runs it): every layer is
// one tile, so every layer but the first reads its predecessor's result in L1, and only the
// last result is stored.
constexpr auto forwarded = tessera::with_l1_forwarding(unfused_chain, unfused_target, plan);
static_assert([] {
  for (std::size_t n = 1; n < forwarded.layers.size(); ++n)
    if (forwarded.layers[n].forwarded_operand != 0 || !forwarded.layers[n - 1].output_unstored) return false;
  return forwarded.layers[0].forwarded_operand == -1 && !forwarded.layers.back().output_unstored &&
         forwarded.l1_bytes <= unfused_target.levels[0].bytes;
}());

// A network type of more than 256 nodes builds under both compilers: its node pack is checked
// without a fold (clang refuses folds of more than 256 operands; graph_nodes, layers_valid).
// Exported networks are this long (torch MobileNetV3: 330 nodes).
namespace long_chain {
constexpr std::size_t nodes = 300;
inline constexpr auto tensors = [] {
  tessera::tensor_table<nodes + 1> t{};
  for (auto& tensor : t.tensors) tensor = {"t", tessera::dtype::s8, {1, 8, 8, 8}};
  return t;
}();
template <std::size_t... I>
auto chain(std::index_sequence<I...>)
    -> tessera::network<tensors, tessera::graph_inputs<0>, tessera::graph_outputs<nodes>,
                        tessera::op::conv<"pw", {.input = I, .output = I + 1}, block::pw_weights, tessera::none,
                                          block::requant>...>;
using network = decltype(chain(std::make_index_sequence<nodes>{}));
static_assert(network::node_count == nodes && network::layers_valid && network::structure_valid);
static_assert(tessera::executor<network>::arena_bytes >= 2 * 512);
}  // namespace long_chain

}  // namespace
