// Compile-only tests of step programs: what the schedule moves and computes is data the
// compiler checks. This file compiling is the test.
#include <tessera/schedule/hazard_check.hpp>
#include <tessera/schedule/statistics.hpp>
#include <tessera/tessera.hpp>

#include "../support/program_surgery.hpp"
#include "../support/tiny_networks.hpp"

namespace {

using namespace tessera;
using net = tiny::features::network;
using schedule::step_kind;
using schedule::transfer_role;

template <std::size_t L1>
inline constexpr target_desc two_levels{.name = "sweep",
                                        .levels = {{{"L1", L1, 8, 2, 10}, {"L2", 64 * 1024, 8, 2, 10}}},
                                        .level_count = 2,
                                        .cores = 2};

// Filters move once per layer, every output byte of a tiled layer is stored once (unless the
// next layer reads it in L1 and nothing else reads it: l1_forwarding.hpp), and every transfer is
// waited for exactly once, at any L1 size.
template <std::size_t L1>
constexpr bool moves_each_filter_and_result_once() {
  using run = tiled_executor<net, target<two_levels<L1>>>;
  constexpr auto t = schedule::totals(net::summary, run::plan, run::program);
  std::uint64_t filters = 0, results = 0;
  std::int64_t tiles = 0, untiled = 0;
  for (std::size_t n = 0; n < net::node_count; ++n) {
    const node_summary& node = net::summary.nodes[n];
    if (!run::plan.layers[n].tiled) {  // one compute step on its L2 buffers, none for an alias (flatten)
      untiled += planning_detail::runs_nothing(net::summary, run::plan, n) ? 0 : 1;
      continue;
    }
    tiles += run::plan.layers[n].solution.cost.tiles;
    filters += node.geometry.weight_bytes_per_channel * static_cast<std::size_t>(node.geometry.out_c);
    if (!run::plan.layers[n].output_unstored) results += net::tensors[node.outputs[0]].bytes();
  }
  return t.bytes_by_role[static_cast<std::size_t>(transfer_role::filters)] == filters &&
         t.bytes_by_role[static_cast<std::size_t>(transfer_role::output)] == results && t.bytes_out[1] == results &&
         t.issues == t.waits && t.tile_computes == tiles && t.computes == tiles + untiled && t.bytes_in[2] == 0 &&
         schedule::check(net::summary, run::plan, run::program).ok();
}
constexpr std::size_t l1_min = smallest_l1_bytes(net::summary, two_levels<0>);
constexpr std::size_t l1_max = untiled_l1_bytes(net::summary, two_levels<0>);
static_assert(moves_each_filter_and_result_once<l1_min>());
static_assert(moves_each_filter_and_result_once<l1_min + 128>());
static_assert(moves_each_filter_and_result_once<(l1_min + l1_max) / 2>());
static_assert(moves_each_filter_and_result_once<l1_max>());
// The plan's own record of the L1 the network needs (what an L1 failure reports beside the first
// failing layer) is the sweep's lower end, at every L1 size.
static_assert(tiled_executor<net, target<two_levels<l1_min>>>::plan.l1_minimum == l1_min);
static_assert(tiled_executor<net, target<two_levels<l1_max>>>::plan.l1_minimum == l1_min);

// Untiled (L1 holds every layer whole, and no more): one filter load per layer with filters
// (conv, dw, fc); pool reads dw's result in L1 (l1_forwarding.hpp), so dw's is not stored and
// pool loads nothing; fc reads pool's the same way through flatten, which runs nothing (a
// reshape on the same L2 bytes: planning/no_op_aliases.hpp). (dw cannot read conv's result so:
// L1 has no room for conv's result, dw's and dw's filters beside conv's buffers.) Each transfer
// waited for.
using roomy = tiled_executor<net, target<two_levels<l1_max>>>;
constexpr auto roomy_totals = schedule::totals(net::summary, roomy::plan, roomy::program);
static_assert(roomy_totals.tile_computes == 4 && roomy_totals.computes == 4);  // conv, dw, pool, fc; no step for flatten
static_assert(roomy::plan.layers[2].forwarded_operand == 0 && roomy::plan.layers[1].output_unstored);
static_assert(roomy::plan.layers[4].forwarded_operand == 0 && roomy::plan.layers[2].output_unstored);
static_assert(roomy::plan.layers[1].forwarded_operand == -1 && roomy::plan.l1_bytes <= l1_max);
static_assert(roomy_totals.issues == 3 + 2 + 2);  // conv: input, filters, store; dw: input, filters; fc: filters, store
static_assert(roomy_totals.bytes_in[1] == 12 * 10 * 3 + 12 * 10 * 8 + (8 * 27 + 8 * 9 + 6 * 160));
static_assert(roomy_totals.bytes_out[1] == 12 * 10 * 8 + 6 * 4);
static_assert(roomy::program.steps.size() == 7 * 2 + 4 + 4);  // issues and waits, computes, dones
static_assert(roomy::program.handles == 2);  // a layer's input and filters are in flight together

// Small L1: tiles alternate between the two input slots (double buffering), and the first
// tiles of the conv layer load into slot 0, 1, 0, ...
using tight = tiled_executor<net, target<two_levels<l1_min + 128>>>;
constexpr int nth_input_slot(int nth) {
  return tight::program.steps[static_cast<std::size_t>(
                                  surgery::find(tight::program, surgery::is(step_kind::issue, transfer_role::input, 0), nth))]
      .slot;
}
static_assert(tight::plan.layers[0].solution.cost.tiles > 2 && tight::plan.layers[0].solution.cost.activations_doubled);
static_assert(nth_input_slot(0) == 0 && nth_input_slot(1) == 1 && nth_input_slot(2) == 0);
// The load of tile 1 is issued before tile 0 computes (prefetch), its wait comes after.
static_assert(surgery::find(tight::program, surgery::is(step_kind::issue, transfer_role::input, 0, 1)) <
              surgery::find(tight::program, surgery::is_compute(0, 0)));
static_assert(surgery::find(tight::program, surgery::is(step_kind::wait, transfer_role::input, 0, 1)) >
              surgery::find(tight::program, surgery::is_compute(0, 0)));
// Each input tile's transfer is exactly the box the tile reads (padding excluded): tile 0 of
// the 3x3 conv reads rows [0, h + 1) of the 12x10x3 image.
constexpr auto first_load = schedule::describe(
    net::summary, tight::plan,
    tight::program.steps[static_cast<std::size_t>(surgery::find(tight::program, surgery::is(step_kind::issue, transfer_role::input, 0, 0)))]);
static_assert(first_load.box.row == 0 && first_load.box.rows == tight::plan.layers[0].solution.tile.h + 1);
static_assert(first_load.src.where == schedule::space::tensor && first_load.dst.where == schedule::space::l1);

// Kernels keep what they derived from a filter block (tile_args::prepared) on exactly the
// tiles after the first of each block, on layers with filters and scratch; every other tile
// derives it again. Counted against the tile walk, on plans with many tiles per block, planned
// with the arm_dsp family's scratch (its convolution keeps widened weights; planning needs only
// its traits, so this runs on any host), and the checker proves the kept scratch untouched.
template <std::size_t L1>
inline constexpr target_desc dsp_two_levels = [] {
  target_desc t = two_levels<L1>;
  t.kernels = kernels::kernel_family::arm_dsp;
  return t;
}();
template <class Run>
constexpr bool prepared_after_each_blocks_first_tile() {
  int prepared = 0, expected = 0;
  for (const schedule::step& s : Run::program.steps) {
    if (s.kind != step_kind::compute || s.tile < 0) continue;
    const node_summary& node = net::summary.nodes[s.layer];
    const auto& l = Run::plan.layers[s.layer];
    const bool keeps = node.geometry.weight_bytes_per_channel > 0 && l.solution.cost.scratch_bytes > 0 && s.tile > 0 &&
                       schedule::position(node.geometry, l.solution.tile, s.tile - 1).block ==
                           schedule::position(node.geometry, l.solution.tile, s.tile).block;
    if ((s.prepared != 0) != keeps) return false;
    prepared += s.prepared;
    expected += keeps ? 1 : 0;
  }
  return prepared == expected && prepared > 0 && schedule::check(net::summary, Run::plan, Run::program).ok();
}
constexpr std::size_t dsp_l1_min = smallest_l1_bytes(net::summary, dsp_two_levels<0>);
static_assert(prepared_after_each_blocks_first_tile<tiled_executor<net, target<dsp_two_levels<dsp_l1_min>>>>());
static_assert(prepared_after_each_blocks_first_tile<tiled_executor<net, target<dsp_two_levels<dsp_l1_min + 256>>>>());

// Three levels: filters come from L3 (flash) into L2 staging, then into L1; each byte moves
// L3 -> L2 once.
inline constexpr target_desc three_levels{
    .name = "three",
    .levels = {{{"L1", 1024, 8, 2, 10}, {"L2", 1200 + 384 + 2 * 320, 8, 2, 10}, {"L3", 1 << 20, 1, 50, 40}}},
    .level_count = 3,
    .cores = 2};
using staged = tiled_executor<net, target<three_levels>>;
constexpr auto staged_totals = schedule::totals(net::summary, staged::plan, staged::program);
static_assert(staged_totals.bytes_by_role[static_cast<std::size_t>(transfer_role::stage_filters)] ==
              8 * 27 + 8 * 9 + 6 * 160);
static_assert(staged_totals.bytes_in[2] == 8 * 27 + 8 * 9 + 6 * 160);
static_assert(staged::plan.layers[4].stage_chunks > 1);  // the fc filters come in chunks
static_assert(schedule::check(net::summary, staged::plan, staged::program).ok());

// L3 chunks do not hold up the CPU: (1) a layer's first L1 filter load is issued before the
// next layer's first L3 chunk, which one DMA engine would serve first; (2) no layer waits for
// another layer's L3 chunk before its own compute when nothing has computed since that chunk
// was issued (it moves into L1 at its own layer's start instead).
template <class Run>
constexpr bool l3_chunks_queue_behind_the_current_work() {
  const auto& steps = Run::program.steps;
  const auto is_chunk = [](const schedule::step& s) { return s.role == transfer_role::stage_filters && s.tile == 0; };
  const auto next_compute = [&](std::size_t i) {
    while (i < steps.size() && steps[i].kind != step_kind::compute) ++i;
    return i < steps.size() ? static_cast<int>(steps[i].layer) : -1;
  };
  std::array<bool, net::node_count> first_filters_issued{};
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const schedule::step& s = steps[i];
    if (s.kind == step_kind::issue && s.role == transfer_role::filters && s.tile == 0)
      first_filters_issued[s.layer] = true;
    const int layer = next_compute(i);
    if (s.kind == step_kind::issue && is_chunk(s) && s.layer != layer && layer >= 0 &&
        Run::plan.layers[static_cast<std::size_t>(layer)].stage_channels > 0 &&
        !first_filters_issued[static_cast<std::size_t>(layer)])
      return false;  // (1)
    if (s.kind == step_kind::wait && is_chunk(s) && s.layer != layer) {
      bool computed_since_issue = false;
      for (std::size_t j = i; j-- > 0;) {
        if (steps[j].kind == step_kind::issue && steps[j].handle == s.handle) break;
        computed_since_issue = computed_since_issue || steps[j].kind == step_kind::compute;
      }
      if (!computed_since_issue) return false;  // (2)
    }
  }
  return true;
}
static_assert(l3_chunks_queue_behind_the_current_work<staged>());

// Unstaged, a layer of several tiles opens the next layer's first filter block behind its last
// tile's loads, so that on one FIFO engine they do not delay its own tiles; a one-tile layer
// opens it at its start (the only time before its compute). Counts the cross-layer openings
// (-1: one in front of the current layer's later loads).
template <class Run>
constexpr int next_filters_behind_last_loads() {
  const auto& steps = Run::program.steps;
  int opened = 0;
  int current = -1;  // the layer whose tiles are being loaded and computed
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const schedule::step& s = steps[i];
    if (s.kind == step_kind::compute) current = s.layer;
    if (s.kind != step_kind::issue || s.role != transfer_role::filters || s.tile != 0 || current < 0 ||
        s.layer == current)
      continue;
    const std::int64_t tiles = Run::plan.layers[static_cast<std::size_t>(current)].solution.cost.tiles;
    for (std::size_t j = i; j < steps.size(); ++j)
      if (steps[j].kind == step_kind::issue && steps[j].layer == current && steps[j].role == transfer_role::input)
        return -1;  // a later tile of the current layer loads behind it
    opened += tiles > 1 ? 1 : 0;
  }
  return opened;
}
inline constexpr target_desc siracusa_latency = [] {
  target_desc t = targets::siracusa;
  t.objective = tiling_objective::latency;
  t.first_load_hidden = true;
  return t;
}();
using dense_chain = tiled_executor<tiny::dense_chain::network, target<siracusa_latency>>;
static_assert(dense_chain::plan.layers[0].solution.cost.tiles > 1 && dense_chain::plan.layers[1].solution.cost.tiles > 1);
static_assert(next_filters_behind_last_loads<dense_chain>() == 2);
static_assert(schedule::check(tiny::dense_chain::network::summary, dense_chain::plan, dense_chain::program).ok());

// With L3 on a DMA engine of its own, a layer whose filters take longer to come from L3 than
// the layers before it compute streams them one L1 filter block per chunk (its first block
// computes while the rest arrive); with one engine they come whole (L2 permitting). The MLP's
// fc1 (16 kB of filters at 1 B/cycle from L3 against ~4,000 cycles of compute) streams; fc2 and
// fc3 (one filter block each) cannot.
template <std::uint8_t L3Engine>
inline constexpr target_desc slow_l3{
    .name = "slow-l3",
    .levels = {{{"L1", 4096, 8, 10, 30}, {"L2", 64 * 1024, 8, 10, 30}, {"L3", 1 << 20, 1, 150, 100, L3Engine}}},
    .level_count = 3,
    .cores = 8,
    .macs_per_cycle_x16 = 128};
/// Layers whose filters stream one L1 block per chunk (-1: a layer streams otherwise, or a hazard).
template <class Run>
constexpr int streamed_layers() {
  using mlp = tiny::mlp::network;
  int streamed = 0;
  for (std::size_t n = 0; n < mlp::node_count; ++n) {
    const layer_l1_plan& l = Run::plan.layers[n];
    if (l.stage_chunks == 1) continue;
    if (l.stage_channels != l.solution.tile.c) return -1;
    ++streamed;
  }
  return schedule::check(mlp::summary, Run::plan, Run::program).ok() ? streamed : -1;
}
static_assert(streamed_layers<tiled_executor<tiny::mlp::network, target<slow_l3<0>>>>() == 0);
static_assert(streamed_layers<tiled_executor<tiny::mlp::network, target<slow_l3<1>>>>() == 1);

// Staging reaches past a layer that runs untiled on L2 (a Gather: no L1, no staging slot): fc2's
// first chunk moves L3 -> L2 while fc1 computes, not behind the Gather.
namespace gathered {
using namespace tiny::mlp;
inline constexpr tessera::constant<std::int32_t, 1> first_row{{0}};
inline constexpr tessera::tensor_table<5> tensors{{{
    {"input", tessera::dtype::s8, {1, 256}},
    {"h1", tessera::dtype::s8, {1, 64}},
    {"h1_row", tessera::dtype::s8, {1, 64}},
    {"h2", tessera::dtype::s8, {1, 40}},
    {"logits", tessera::dtype::s32, {1, 7}},
}}};
using network = tessera::network<
    tensors, tessera::graph_inputs<0>, tessera::graph_outputs<4>,
    tessera::op::gemm<"fc1", {.input = 0, .output = 1, .n = 64, .k = 256}, fc1_weights, fc1_bias, fc1_requant>,
    tessera::op::gather<"row", {.input = 1, .output = 2, .axis = 0}, first_row>,
    tessera::op::gemm<"fc2", {.input = 2, .output = 3, .n = 40, .k = 64}, fc2_weights, tessera::none, fc2_requant>,
    tessera::op::gemm<"fc3", {.input = 3, .output = 4, .n = 7, .k = 40}, fc3_weights, fc3_bias>>;
}  // namespace gathered
template <class Run>
constexpr bool fc2_stages_during_fc1() {
  std::size_t chunk = 0, gather = 0;
  for (std::size_t i = 0; i < Run::program.steps.size(); ++i) {
    const schedule::step& s = Run::program.steps[i];
    if (s.kind == step_kind::issue && s.role == transfer_role::stage_filters && s.layer == 2 && s.tile == 0) chunk = i;
    if (s.kind == step_kind::compute && s.layer == 1) gather = i;
  }
  return !Run::plan.layers[1].tiled && chunk > 0 && chunk < gather &&
         schedule::check(gathered::network::summary, Run::plan, Run::program).ok();
}
static_assert(fc2_stages_during_fc1<tiled_executor<gathered::network, target<targets::gap8>>>());
// Untiled at gap8's L1 (one tile per layer): each layer's chunk stages during the layer before.
using staged_gap8 = tiled_executor<net, target<targets::gap8>>;
static_assert(schedule::totals(net::summary, staged_gap8::plan, staged_gap8::program).bytes_in[2] > 0);
static_assert(l3_chunks_queue_behind_the_current_work<staged_gap8>());

// With L3 on an engine of its own (gap8), once a layer's last filter block has left its staging
// slot, that slot takes the chunk of the filtered layer after the next one: two chunks stream at
// once. With one engine for every level it would queue in front of the next layer's first loads:
// one chunk at a time.
template <class Run>
constexpr int most_chunks_in_flight() {
  int in_flight = 0, most = 0;
  for (const schedule::step& s : Run::program.steps) {
    if (s.role != transfer_role::stage_filters && s.role != transfer_role::stage_producer_filters) continue;
    in_flight += s.kind == step_kind::issue ? 1 : s.kind == step_kind::wait ? -1 : 0;
    most = in_flight > most ? in_flight : most;
  }
  return most;
}
inline constexpr target_desc gap8_one_engine = [] {
  target_desc t = targets::gap8;
  t.levels[2].dma_engine = 0;
  return t;
}();
static_assert(most_chunks_in_flight<staged_gap8>() == 2);
static_assert(most_chunks_in_flight<tiled_executor<net, target<gap8_one_engine>>>() == 1);
static_assert(schedule::check(net::summary, staged_gap8::plan, staged_gap8::program).ok());

// Emission in chunks (each chunk resumes the emitter in its own constant evaluation) gives the
// program of one evaluation, wherever the chunks end: after every tile (limit 1), after a few,
// and the executor's default, on two- and three-level plans, with and without prefetch across
// layers.
template <class Run, std::size_t Limit>
constexpr bool chunked_emission_is_whole() {
  using chunked = schedule::emission<Run::summary, Run::plan, Limit>;
  constexpr auto whole = schedule::emit_program<schedule::count_steps(Run::summary, Run::plan)>(Run::summary, Run::plan);
  if (chunked::size != whole.size() || chunked::program.handles != whole.handles) return false;
  for (std::size_t i = 0; i < whole.size(); ++i)
    if (!(chunked::program.steps[i] == whole.steps[i])) return false;
  return (Limit > 1 || chunked::chunks > 1) && chunked::fits_chunks;
}
template <class Run>
constexpr bool chunked_emission_is_whole() {
  return chunked_emission_is_whole<Run, 1>() && chunked_emission_is_whole<Run, 5>() &&
         chunked_emission_is_whole<Run, 64>() && chunked_emission_is_whole<Run, schedule::steps_per_emission>();
}
static_assert(chunked_emission_is_whole<tiled_executor<net, target<two_levels<l1_min>>>>());
static_assert(chunked_emission_is_whole<tiled_executor<net, target<two_levels<l1_min + 128>>>>());
static_assert(chunked_emission_is_whole<roomy>());
static_assert(chunked_emission_is_whole<staged>());
// L3 on an engine of its own: chunks two layers ahead, streamed filters, held stores.
static_assert(chunked_emission_is_whole<tiled_executor<tiny::mlp::network, target<slow_l3<1>>>>());
static_assert(chunked_emission_is_whole<tiled_executor<net, target<targets::gap8>>>());
static_assert(chunked_emission_is_whole<tiled_executor<net, target<dsp_two_levels<dsp_l1_min>>>>());

}  // namespace
