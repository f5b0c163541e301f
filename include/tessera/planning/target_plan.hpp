// The deployment plan of a network on a target: the L2 activation arena (lifetime planner),
// and for every layer its L1 tile, tile count and L1 buffer offsets (tile solver).
//
// L1 is reused layer after layer (one layer runs at a time), so its size is the largest
// layer's need. A layer that cannot be tiled into L1, or an arena that does not fit L2, makes
// the plan fail with the layer, the level, the bytes needed and the bytes available; the
// executor turns that into one compile-time diagnostic.
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

#include <tessera/graph/network.hpp>
#include <tessera/planning/arena_plan.hpp>
#include <tessera/planning/dispatch.hpp>
#include <tessera/planning/l1_forwarding.hpp>
#include <tessera/planning/l1_layout.hpp>
#include <tessera/planning/no_op_aliases.hpp>
#include <tessera/planning/tile_solver.hpp>
#include <tessera/target/target.hpp>

namespace tessera {

/// A range of the local space a plan uses: the CPU's L1 (index 0) or an accelerator memory.
struct local_region {
  std::size_t base = 0, bytes = 0;
};
inline constexpr int max_local_regions = 5;  ///< the CPU's L1 and two memories per accelerator
constexpr int local_region_index(int engine, bool weights) { return engine == 0 ? 0 : 2 * engine - 1 + (weights ? 1 : 0); }

template <std::size_t NT, std::size_t NN>
struct target_plan {
  arena_plan<NT, NN> l2{};
  std::array<layer_l1_plan, NN> layers{};
  std::size_t l1_bytes = 0;  ///< L1 the network needs (largest layer)
  /// What each local memory holds at most (local_region_index): region 0 is [0, l1_bytes).
  std::array<local_region, max_local_regions> local{};
  std::size_t io_bytes = 0;  ///< graph inputs and outputs, which also live in L2
  /// L2 region where filters staged from L3 land: two slots after the activation arena
  /// (one when no layer needs more than one chunk).
  std::array<std::size_t, 2> staging_slot{};
  std::size_t staging_bytes = 0;
  std::size_t l2_bytes = 0;  ///< arena + staging: the L2 buffer the caller provides
  /// L3 has a DMA engine of its own (memory_level::dma_engine): L3 transfers run beside L2's.
  bool l3_streams = false;
  memory_level l3_level{};  ///< the target's L3 (three-level targets): the emitter's cost of a chunk
  /// Three-level targets whose activations do not fit L2: the tensors spilled to L3 (DORY's
  /// "L3-tile x/y" stages), their L3 arena, and the L2 slots their tiles pass through
  /// (inputs L3 -> L2 -> L1, outputs L1 -> L2 -> L3, each double-buffered).
  std::array<bool, NT> in_l3{};
  arena_plan<NT, NN> l3{};
  std::array<std::size_t, 2> spill_input_slot{};
  std::array<std::size_t, 2> spill_output_slot{};
  std::size_t spill_staging_bytes = 0;
  // The first failure, if any:
  bool fits = true;
  int failing_node = 0;
  int failing_level = 0;  ///< a memory (level_name); -1: a forced engine assignment breaks a rule
  int broken_engine = 0;
  rule broken_rule = rule::holds;
  std::size_t needed = 0;
  std::size_t available = 0;
  /// The L1 the whole network needs at least (its largest smallest tile) and that layer: an L1
  /// failure reports it beside the first failing layer, so one build tells the size to ask for.
  std::size_t l1_minimum = 0;
  int l1_minimum_node = 0;
};

namespace planning_detail {

/// Cross-layer prefetch needs the next layer's buffers apart from the current one's: tiled
/// layers sit alternately at the bottom and at the top of the L1 the plan uses, and that L1
/// grows to hold each pair of consecutive tiled layers that fits the level together (a pair
/// that does not fit overlaps and runs one after the other). Example: layers of 20, 30 and
/// 50 kB in a 64 kB L1 use 50 kB: the first two (bottom, top) can overlap, the last two not.
template <std::size_t NT, std::size_t NN>
constexpr void place_for_prefetch(target_plan<NT, NN>& plan, std::size_t capacity) {
  std::size_t total = plan.l1_bytes;
  const layer_l1_plan* previous = nullptr;
  for (const layer_l1_plan& l : plan.layers) {
    if (!l.tiled || l.engine != 0) continue;  // accelerator layers live in their own memories
    if (previous != nullptr && previous->bytes + l.bytes <= capacity && previous->bytes + l.bytes > total)
      total = previous->bytes + l.bytes;
    previous = &l;
  }
  bool top = false;
  for (layer_l1_plan& l : plan.layers) {
    if (!l.tiled || l.engine != 0) continue;
    if (top) {
      const std::size_t shift = total - l.bytes;
      l.base += shift;
      for (auto* slots : {&l.input, &l.output, &l.weights})
        for (std::size_t& at : *slots) at += shift;
      l.scratch += shift;
    }
    top = !top;
  }
  plan.l1_bytes = total;
}

/// Bytes of an L2 staging chunk of `channels` output channels' filters: a fused block's first
/// layer's filters for them in front (consumer_filter_offset), then the layer's own.
constexpr std::size_t filter_chunk_bytes(const tile_geometry& geometry, int channels) {
  return consumer_filter_offset(geometry, channels) +
         tiling_detail::aligned(geometry.weight_bytes_per_channel * static_cast<std::size_t>(channels));
}

/// The smallest filter staging a layer accepts: its filters whole, or two chunks of one L1
/// channel block (the L3 step below never plans less).
constexpr std::size_t min_filter_staging(const layer_l1_plan& layer, const tile_geometry& geometry) {
  if (!layer.tiled || geometry.weight_bytes_per_channel == 0) return 0;
  const std::size_t whole = filter_chunk_bytes(geometry, geometry.out_c);
  const std::size_t blocks = 2 * filter_chunk_bytes(geometry, layer.solution.tile.c);
  return whole < blocks ? whole : blocks;
}

/// DORY's cascade for activations: while the L2 arena, the caller's buffers and the smallest
/// staging do not fit L2, move to L3 the largest tensor live where the arena peaks, among those
/// only tiled layers touch (their tiles can pass through L2; other ops work on L2 buffers).
/// Each layer touching a spilled tensor gets double-buffered L2 slots for its tiles.
/// Bytes of one L2 slot for spilled input tiles and one for spilled output tiles.
struct spill_slots {
  std::size_t input = 0;
  std::size_t output = 0;
};

template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr spill_slots spill_to_l3(const graph_summary<NT, NI, NO, NN>& g, const target_desc& t,
                                  target_plan<NT, NN>& plan) {
  using tiling_detail::aligned;
  std::array<bool, NT> eligible{};
  std::array<int, NT> first{}, last{};
  std::array<bool, NT> seen{};
  for (std::size_t n = 0; n < NN; ++n) {
    const node_summary& node = g.nodes[n];
    for (int i = 0; i < node.output_count; ++i) {
      const auto id = static_cast<std::size_t>(node.outputs[static_cast<std::size_t>(i)]);
      eligible[id] = plan.layers[n].tiled && node.output_count == 1;
      first[id] = last[id] = static_cast<int>(n);
      seen[id] = true;
    }
  }
  for (std::size_t n = 0; n < NN; ++n) {
    const node_summary& node = g.nodes[n];
    for (int i = 0; i < node.input_count; ++i) {
      const auto id = static_cast<std::size_t>(node.inputs[static_cast<std::size_t>(i)]);
      if (!plan.layers[n].tiled) eligible[id] = false;
      if (static_cast<int>(n) > last[id]) last[id] = static_cast<int>(n);
    }
  }
  for (tensor_id id : g.inputs) eligible[static_cast<std::size_t>(id)] = false;
  for (tensor_id id : g.outputs) eligible[static_cast<std::size_t>(id)] = false;
  for (std::size_t id = 0; id < NT; ++id) eligible[id] = eligible[id] && seen[id];

  std::size_t filter_staging = 0;
  for (std::size_t n = 0; n < NN; ++n) {
    const std::size_t need = min_filter_staging(plan.layers[n], g.nodes[n].geometry);
    if (need > filter_staging) filter_staging = need;
  }
  spill_slots slots{};
  for (std::size_t round = 0; round <= NT; ++round) {
    // L2 slots for the tiles of layers that touch spilled tensors.
    std::size_t in_slot = 0, out_slot = 0;
    for (std::size_t n = 0; n < NN; ++n) {
      const node_summary& node = g.nodes[n];
      const layer_l1_plan& layer = plan.layers[n];
      bool reads = false;
      for (int i = 0; i < node.input_count; ++i) reads = reads || plan.in_l3[static_cast<std::size_t>(node.inputs[static_cast<std::size_t>(i)])];
      const bool writes = node.output_count > 0 && plan.in_l3[static_cast<std::size_t>(node.outputs[0])];
      if (reads && aligned(layer.solution.cost.input_bytes) > in_slot) in_slot = aligned(layer.solution.cost.input_bytes);
      if (writes && aligned(layer.solution.cost.output_bytes) > out_slot) out_slot = aligned(layer.solution.cost.output_bytes);
    }
    slots = {in_slot, out_slot};
    plan.spill_staging_bytes = 2 * (in_slot + out_slot);
    // Round 0 is plan_for's arena (nothing spilled). Later rounds only need its size to pick
    // the next tensor: they skip the branch and bound (up to one round per tensor in one
    // constant evaluation), and the final arena gets it below.
    if (round > 0) plan.l2 = plan_arena(g, plan.in_l3, true, t.kernels, 0);
    if (plan.l2.arena_bytes + plan.io_bytes + plan.spill_staging_bytes + filter_staging <= t.levels[1].bytes) break;
    std::size_t pick = NT;
    for (std::size_t id = 0; id < NT; ++id) {
      if (!eligible[id] || plan.in_l3[id]) continue;
      if (first[id] > plan.l2.peak_step || last[id] < plan.l2.peak_step) continue;
      if (pick == NT || g.tensors[id].bytes() > g.tensors[pick].bytes()) pick = id;
    }
    if (pick == NT) break;  // nothing left to spill: plan_for reports the L2 shortfall
    plan.in_l3[pick] = true;
  }
  bool spilled = false;
  for (std::size_t id = 0; id < NT; ++id) spilled = spilled || plan.in_l3[id];
  if (spilled && !plan.l2.optimal) plan.l2 = plan_arena(g, plan.in_l3, true, t.kernels);  // never larger
  std::array<bool, NT> not_in_l3{};
  for (std::size_t id = 0; id < NT; ++id) not_in_l3[id] = !plan.in_l3[id];
  plan.l3 = plan_arena(g, not_in_l3, false, t.kernels);
  return slots;
}
}  // namespace planning_detail

/// The tiling problem of node `n` of `g` on accelerator `engine` of `t`: its activation memory
/// as L1, its weight memory for the filters, its cost model (for the simulator), its array as
/// the micro-tile. It computes with the reference kernels' integers (no kernel scratch of the
/// CPU families: the array needs none; the reference tile functions the simulated engine runs
/// need none for the ops an engine's rules admit).
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr tile_problem engine_problem_of(const graph_summary<NT, NI, NO, NN>& g, const target_desc& t, std::size_t n,
                                         int engine) {
  const engine_desc& e = t.accelerator(engine);
  const tile_geometry& geometry = g.nodes[n].geometry;
  const auto reference = static_cast<std::size_t>(kernel_set::reference);
  tile_problem p = tile_problem_for(t, geometry, e.activations.bytes, g.nodes[n].tile_scratch[reference]);
  p.constant_capacity = e.weights.bytes;
  p.double_buffering = !e.single_buffered;
  p.cores = 1;
  const kernel_cost& cost = e.compute[cost_kind_of(geometry)];
  // The target's objective. Under DORY's (the presets'), HTVM's heuristics: the array as the
  // micro-tile, so that tile widths and channel blocks fall on multiples of the array; naive
  // tiling drops them (and always uses DORY's objective: the most memory). The latency
  // objective derives the same preference from the engine's model, whose granules round a
  // tile up to the array, and minimises the engine's modelled time with its transfers.
  p.micro_c = !e.naive_tiling && cost.channel_granule > 1 ? cost.channel_granule : 1;
  p.micro_w = !e.naive_tiling && cost.width_granule > 1 ? cost.width_granule : 1;
  p.objective = e.naive_tiling ? tiling_objective::dory_l1 : t.objective;
  p.latency.compute = cost;  // the modelled time, with the transfers on the engine's DMA path
  if (t.level_count > 1) p.latency.transfer = t.transfer_path(1, engine);
  p.latency.forwarded_input = p.latency.forwarded_output = false;  // they keep results in their own memories
  return p;
}

/// The L1 tiling problem of layer `node` on `t`'s CPU with `capacity` bytes of L1; a fused
/// block's problem also carries the scratch function of `producer`, its first node.
constexpr tile_problem node_problem(const target_desc& t, const node_summary& node, const node_summary* producer,
                                    std::size_t capacity) {
  const auto family = static_cast<std::size_t>(t.kernels);
  tile_problem p = tile_problem_for(t, node.geometry, capacity, node.tile_scratch[family]);
  if (node.geometry.fused() && producer != nullptr) p.producer_scratch = producer->tile_scratch[family];
  if (node.growth.capacity > 0) p.latency.forwarded_input = p.latency.forwarded_output = false;  // a run-time length
  return p;
}

/// The L1 tiling problem of node `n` of `g` on `t` with `capacity` bytes of L1 (node_problem);
/// on an accelerator (`engine` > 0), engine_problem_of.
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr tile_problem problem_of(const graph_summary<NT, NI, NO, NN>& g, const target_desc& t, std::size_t n,
                                  std::size_t capacity, int engine = 0) {
  if (engine > 0) return engine_problem_of(g, t, n, engine);
  const auto producer = static_cast<std::size_t>(g.nodes[n].producer_offset);
  return node_problem(t, g.nodes[n], producer > 0 && producer <= n ? &g.nodes[n - producer] : nullptr, capacity);
}

namespace planning_detail {
/// Bytes of the caller's input and output buffers (in L2 with the arena).
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr std::size_t io_bytes(const graph_summary<NT, NI, NO, NN>& g) {
  std::size_t bytes = 0;
  for (tensor_id id : g.inputs) bytes += g.tensors[static_cast<std::size_t>(id)].bytes();
  for (tensor_id id : g.outputs) bytes += g.tensors[static_cast<std::size_t>(id)].bytes();
  return bytes;
}

/// Whether `g` cannot fit L2 on `t` whatever its tiles, so the planner reports L2 without
/// solving a tile. On a two-level target L2 holds the activation arena and the caller's buffers,
/// and neither depends on the tiles (with a third level activations may spill to L3, and how
/// much depends on them); no arena is smaller than the bytes live at one step. A layer's tile
/// search costs steps even when the search is cheap per tile: a 3x3 convolution on a 1024 x 1024
/// image takes 4-8 M of clang's constexpr steps (its limit is 2^20) - the diagnostic must not
/// wait for it when 11 MB of activations meet 512 kB of L2.
constexpr bool l2_fails_untiled(const target_desc& t, std::size_t live_bytes, std::size_t caller_bytes) {
  return t.level_count == 2 && live_bytes + caller_bytes > t.levels[1].bytes;
}
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr bool l2_fails_untiled(const graph_summary<NT, NI, NO, NN>& g, const target_desc& t) {
  if (t.level_count != 2) return false;
  return l2_fails_untiled(t, live_peak_of(collect_buffers(g, {}, true, t.kernels)).bytes, io_bytes(g));
}
}  // namespace planning_detail

/// Whether node `n` tiles through L1 on `t`.
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr bool tiles_on(const graph_summary<NT, NI, NO, NN>& g, const target_desc& t, std::size_t n) {
  return t.level_count >= 2 && g.nodes[n].geometry.kind == tiling_kind::tiled;
}

/// The L1 tile of layer `n` on engine `engine` (infeasible and not tiled: `feasible` false,
/// `smallest_bytes` 0).
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr tile_solution solve_layer(const graph_summary<NT, NI, NO, NN>& g, const target_desc& t, std::size_t n,
                                    int engine = 0) {
  if (!tiles_on(g, t, n)) return {};
  return solve_tiles(problem_of(g, t, n, t.levels[0].bytes, engine));
}

/// One layer's tiling problem; `tiled` false: the layer is not tiled (its solution is empty).
struct layer_problem {
  bool tiled = false;
  tile_problem problem{};
  int engine = 0;  ///< what computes it (dispatch_layers): 0 the CPU, k accelerator k
};

template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr std::array<layer_problem, NN> layer_problems_of(const graph_summary<NT, NI, NO, NN>& g,
                                                          const target_desc& t) {
  std::array<layer_problem, NN> out{};
  if (planning_detail::l2_fails_untiled(g, t)) return out;  // none to solve: plan_for reports L2 first
  const auto engines = dispatch_layers(g, t);
  for (std::size_t n = 0; n < NN; ++n)
    if (tiles_on(g, t, n)) out[n] = {true, problem_of(g, t, n, t.levels[0].bytes, engines[n].engine), engines[n].engine};
  // L1 forwarding happens only between CPU layers that tile, in the order they run (aliases
  // and the first layers of fused blocks have no steps of their own: runs_no_steps): the latency
  // model credits no side that has none (the network's ends, a layer on L2 or on an
  // accelerator next to it).
  const auto forwards = [&](std::size_t n) { return out[n].tiled && out[n].engine == 0; };
  std::size_t before = NN;
  for (std::size_t n = 0; n < NN; ++n) {
    if (planning_detail::runs_no_steps(g, n)) continue;
    if (out[n].tiled && (before == NN || !forwards(before) || !forwards(n)))
      out[n].problem.latency.forwarded_input = false;
    if (before < NN && out[before].tiled && !forwards(n)) out[before].problem.latency.forwarded_output = false;
    before = n;
  }
  if (before < NN && out[before].tiled) out[before].problem.latency.forwarded_output = false;
  return out;
}

/// Whether the planner models cross-layer prefetch (planning_detail::with_prefetch).
constexpr bool prefetches_fill(const target_desc& t) {
  return t.first_load_hidden && t.objective == tiling_objective::latency;
}

namespace planning_detail {
/// Whether node `n` reads an output of one of the nodes `first` .. `last` - 1.
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr bool reads_output_of_nodes(const graph_summary<NT, NI, NO, NN>& g, std::size_t n, std::size_t first,
                                     std::size_t last) {
  const node_summary& reader = g.nodes[n];
  for (std::size_t m = first; m < last; ++m)
    for (int o = 0; o < g.nodes[m].output_count; ++o)
      for (int i = 0; i < reader.input_count; ++i)
        if (reader.inputs[static_cast<std::size_t>(i)] == g.nodes[m].outputs[static_cast<std::size_t>(o)]) return true;
  return false;
}

/// Cross-layer prefetch for the latency objective (target_desc::first_load_hidden): each tiled
/// layer's first loads may run while the tiled layer before it computes its last tile, if L1
/// holds both layers (place_for_prefetch), and its first input tile only after that layer (or
/// a node between) produced it. `layers` and `tiles`: the problems and their tiles without
/// prefetch; the result: the problems with each layer's `hidden_fill` (that last tile's
/// modelled compute) and `input_waits`.
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr std::array<layer_problem, NN> with_prefetch(const graph_summary<NT, NI, NO, NN>& g, const target_desc& t,
                                                      std::array<layer_problem, NN> layers,
                                                      const std::array<tile_solution, NN>& tiles) {
  if (!prefetches_fill(t)) return layers;
  std::size_t previous = NN;  // the tiled CPU layer before, none yet
  for (std::size_t n = 0; n < NN; ++n) {
    if (!layers[n].tiled || layers[n].engine != 0) continue;
    const std::size_t before = previous;
    previous = n;
    if (before == NN || !tiles[before].feasible || !tiles[n].feasible ||
        tiles[before].cost.total_bytes + tiles[n].cost.total_bytes > layers[n].problem.capacity)
      continue;
    latency_model& lm = layers[n].problem.latency;
    lm.hidden_fill = last_tile_compute(layers[before].problem, tiles[before].tile);
    lm.input_waits = reads_output_of_nodes(g, n, before, n);
  }
  return layers;
}

/// Of each layer's tile with prefetch (`with`, solved for `prefetched`) and without (`without`,
/// for `plain`), the one with prefetch where L1 holds it beside the tile kept for the layer
/// before (else the prefetch does not happen: place_for_prefetch); the problems to match.
template <std::size_t NN>
struct prefetch_choice {
  std::array<layer_problem, NN> problems{};
  std::array<tile_solution, NN> tiles{};
};
template <std::size_t NN>
constexpr prefetch_choice<NN> choose_prefetch(const std::array<layer_problem, NN>& plain,
                                              const std::array<tile_solution, NN>& without,
                                              const std::array<layer_problem, NN>& prefetched,
                                              const std::array<tile_solution, NN>& with) {
  prefetch_choice<NN> out{plain, without};
  std::size_t previous = NN;
  for (std::size_t n = 0; n < NN; ++n) {
    if (!plain[n].tiled || plain[n].engine != 0) continue;
    if (previous != NN && prefetched[n].problem.latency.hidden_fill > 0 && with[n].feasible &&
        out.tiles[previous].cost.total_bytes + with[n].cost.total_bytes <= plain[n].problem.capacity) {
      out.problems[n] = prefetched[n];
      out.tiles[n] = with[n];
    }
    previous = n;
  }
  return out;
}
}  // namespace planning_detail

/// Every layer's L1 tile, solved in one evaluation (the executor solves each layer in its own
/// constant evaluation instead, see `layer_solutions`).
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr std::array<tile_solution, NN> solve_layers(const graph_summary<NT, NI, NO, NN>& g, const target_desc& t) {
  std::array<tile_solution, NN> out{};
  if (planning_detail::l2_fails_untiled(g, t)) return out;  // plan_for reports L2 first
  const auto plain = layer_problems_of(g, t);
  for (std::size_t n = 0; n < NN; ++n) out[n] = plain[n].tiled ? solve_tiles(plain[n].problem) : tile_solution{};
  if (!prefetches_fill(t)) return out;
  const auto prefetched = planning_detail::with_prefetch(g, t, plain, out);
  std::array<tile_solution, NN> with{};
  for (std::size_t n = 0; n < NN; ++n) with[n] = prefetched[n].tiled ? solve_tiles(prefetched[n].problem) : tile_solution{};
  return planning_detail::choose_prefetch(plain, out, prefetched, with).tiles;
}

/// A layer's problem solved in its own constant evaluation: GCC bounds every evaluation (2^25
/// operations by default), so a network's planning cost is bounded per layer, not in total.
/// Keyed by the problem's value, not by the network and the layer's index: a per-layer entity
/// named by the network spells all its nodes, O(layers^2) bytes for the compiler (a chain of
/// 1,000 nodes took 20 s more to compile); and equal layers share one evaluation. The scratch
/// functions travel as their own arguments: GCC 12 rejects a pointer to a function template
/// specialization inside a class-type template argument.
template <layer_problem P, scratch_function Scratch, scratch_function ProducerScratch = nullptr>
inline constexpr tile_solution solved_layer = [] {
  if (!P.tiled) return tile_solution{};
  tile_problem problem = P.problem;
  problem.scratch = Scratch;
  problem.producer_scratch = ProducerScratch;
  return solve_tiles(problem);
}();

namespace planning_detail {
/// Whether the filters of layer `g` (with a fused block's first layer's: producer_filter_bytes)
/// arrive sooner streamed from L3 one L1 filter block (`tile_c` channels) per chunk than staged
/// whole, by the L3 time each leaves exposed: staged whole, what the `window` of compute before
/// the layer does not hide; streamed, the first chunk's excess over that window plus the other
/// chunks' (each paying the transfer's setup and latency again) over the layer's own compute
/// before its last block (`cycles` modelled).
constexpr bool streams_filters(const memory_level& l3, const tile_geometry& g, int tile_c, std::uint64_t cycles,
                               std::uint64_t window) {
  const auto beyond = [](std::uint64_t a, std::uint64_t b) { return a > b ? a - b : 0; };
  const auto bytes_of = [&](int channels) {
    return producer_filter_bytes(g, channels) + g.weight_bytes_per_channel * static_cast<std::size_t>(channels);
  };
  const std::uint64_t blocks = static_cast<std::uint64_t>((g.out_c + tile_c - 1) / tile_c);
  if (blocks < 2) return false;
  const std::uint64_t whole = l3.transfer_cycles(bytes_of(g.out_c));
  const std::uint64_t first = l3.transfer_cycles(bytes_of(tile_c));
  const std::uint64_t rest =
      l3.transfer_cycles(bytes_of(g.out_c) - bytes_of(tile_c)) + (blocks - 2) * (l3.setup_cycles + l3.latency_cycles);
  return beyond(first, window) + beyond(rest, cycles - cycles / blocks) < beyond(whole, window);
}

constexpr layer_problem without_scratch(layer_problem p) {
  p.problem.scratch = nullptr;
  p.problem.producer_scratch = nullptr;
  return p;
}
}  // namespace planning_detail

/// Each of `problems` solved in its own constant evaluation.
template <const auto& Problems>
inline constexpr auto solved_layers = []<std::size_t... N>(std::index_sequence<N...>) {
  return std::array<tile_solution, sizeof...(N)>{solved_layer<planning_detail::without_scratch(Problems[N]),
                                                               Problems[N].problem.scratch,
                                                               Problems[N].problem.producer_scratch>...};
}(std::make_index_sequence<std::remove_cvref_t<decltype(Problems)>{}.size()>{});

/// Each layer's problem and tile without cross-layer prefetch, then with it (with_prefetch,
/// choose_prefetch; only for the latency objective with `first_load_hidden`).
template <const auto& Summary, target_desc Target>
inline constexpr auto plain_layer_problems = layer_problems_of(Summary, Target);
template <const auto& Summary, target_desc Target>
inline constexpr auto prefetch_layer_problems =
    planning_detail::with_prefetch(Summary, Target, plain_layer_problems<Summary, Target>,
                                   solved_layers<plain_layer_problems<Summary, Target>>);
template <const auto& Summary, target_desc Target>
inline constexpr auto prefetch_layers = planning_detail::choose_prefetch(
    plain_layer_problems<Summary, Target>, solved_layers<plain_layer_problems<Summary, Target>>,
    prefetch_layer_problems<Summary, Target>, solved_layers<prefetch_layer_problems<Summary, Target>>);

/// Every layer's problem (the fusion selector weighs them) and tile, each tile solved in its
/// own constant evaluation (`solved_layer`), equal to `solve_layers` (the executor passes it
/// to plan_for).
template <const auto& Summary, target_desc Target>
inline constexpr auto layer_problems = [] {
  if constexpr (prefetches_fill(Target)) return prefetch_layers<Summary, Target>.problems;
  else return plain_layer_problems<Summary, Target>;
}();
template <const auto& Summary, target_desc Target>
inline constexpr auto layer_solutions = [] {
  if constexpr (prefetches_fill(Target)) return prefetch_layers<Summary, Target>.tiles;
  else return solved_layers<plain_layer_problems<Summary, Target>>;
}();

/// The plan of `g` on `t`, with each layer's L1 tile already solved (`solve_layer`; the
/// executor passes `layer_solutions`).
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr target_plan<NT, NN> plan_for(const graph_summary<NT, NI, NO, NN>& g, const target_desc& t,
                                       const std::array<tile_solution, NN>& solutions) {
  target_plan<NT, NN> plan{};
  plan.l2 = plan_arena(g, {}, true, t.kernels);
  plan.io_bytes = planning_detail::io_bytes(g);
  if (t.level_count < 2) return plan;  // flat memory: nothing to tile

  const auto fail = [&](int node, int level, std::size_t needed, std::size_t available) {
    if (!plan.fits) return;
    plan.fits = false;
    plan.failing_node = node;
    plan.failing_level = level;
    plan.needed = needed;
    plan.available = available;
  };

  // L1: every tiled layer, solved for the whole L1 (layers run one at a time); an
  // accelerator's layers for its own memories.
  const auto engines = dispatch_layers(g, t);
  for (std::size_t n = 0; n < NN; ++n) {
    if (engines[n].broken == rule::holds) continue;
    fail(static_cast<int>(n), -1, 0, 0);
    plan.broken_engine = engines[n].engine;
    plan.broken_rule = engines[n].broken;
    return plan;
  }
  // L2 before L1 when L2 fails whatever the tiles (then no tile was solved, see
  // l2_fails_untiled; the arena's lower bound is the same live peak).
  if (planning_detail::l2_fails_untiled(t, plan.l2.lower_bound_bytes, plan.io_bytes)) {
    plan.l2_bytes = plan.l2.arena_bytes;
    fail(plan.l2.peak_step, 1, plan.l2.arena_bytes + plan.io_bytes, t.levels[1].bytes);
    return plan;
  }
  for (std::size_t n = 0; n < NN; ++n) {
    const tile_geometry& geometry = g.nodes[n].geometry;
    if (geometry.kind != tiling_kind::tiled) continue;
    const tile_solution& s = solutions[n];
    if (const int e = engines[n].engine; e > 0) {
      const engine_desc& engine = t.accelerator(e);
      if (!s.feasible) {
        if (s.smallest_bytes > engine.activations.bytes)
          fail(static_cast<int>(n), accelerator_level(e, false), s.smallest_bytes, engine.activations.bytes);
        else
          fail(static_cast<int>(n), accelerator_level(e, true), s.smallest_constant_bytes, engine.weights.bytes);
        continue;
      }
      plan.layers[n] = planning_detail::lay_out_l1(s, &t, e);
      local_region& act = plan.local[static_cast<std::size_t>(local_region_index(e, false))];
      local_region& wts = plan.local[static_cast<std::size_t>(local_region_index(e, true))];
      act.base = local_base(t, e, false);
      wts.base = local_base(t, e, true);
      if (plan.layers[n].bytes > act.bytes) act.bytes = plan.layers[n].bytes;
      const std::size_t filters = s.cost.constant_memory_bytes;
      if (filters > wts.bytes) wts.bytes = filters;
      continue;
    }
    if (s.smallest_bytes > plan.l1_minimum) {
      plan.l1_minimum = s.smallest_bytes;
      plan.l1_minimum_node = static_cast<int>(n);
    }
    if (!s.feasible) {
      fail(static_cast<int>(n), 0, s.smallest_bytes, t.levels[0].bytes);
      continue;
    }
    plan.layers[n] = planning_detail::lay_out_l1(s);
    if (plan.layers[n].bytes > plan.l1_bytes) plan.l1_bytes = plan.layers[n].bytes;
  }
  if (plan.fits) planning_detail::place_for_prefetch(plan, t.levels[0].bytes);
  plan.local[0] = {0, plan.l1_bytes};

  // L2: the activation arena plus the caller's input and output buffers. Name the layer where
  // the most bytes are live: that is where the arena peaks. On a three-level target, spill
  // activations to L3 until the rest fits (see spill_to_l3).
  using tiling_detail::aligned;
  planning_detail::spill_slots spill{};
  if (t.level_count >= 3 && plan.fits) spill = planning_detail::spill_to_l3(g, t, plan);
  const std::size_t l2_needed = plan.l2.arena_bytes + plan.io_bytes + plan.spill_staging_bytes;
  plan.l2_bytes = plan.l2.arena_bytes;
  if (l2_needed > t.levels[1].bytes) {
    fail(plan.l2.peak_step, 1, l2_needed, t.levels[1].bytes);
    return plan;
  }
  if (t.level_count < 3 || !plan.fits) return plan;

  // L3 -> L2 (DORY's "L3-tile w" stage): filters live in L3; each layer's filters are staged in
  // what L2 has left, whole when they fit, else in double-buffered chunks of output channels
  // (a multiple of the L1 tile's channels, so an L1 filter tile never straddles two chunks).
  // With L3 on a DMA engine of its own, one L1 block per chunk when streaming them exposes less
  // L3 time than staging them whole (streams_filters).
  const std::size_t budget = t.levels[1].bytes - l2_needed;
  const bool l3_streams = t.levels[2].dma_engine != t.levels[1].dma_engine;
  plan.l3_streams = l3_streams;
  plan.l3_level = t.levels[2];
  std::size_t slot_bytes = 0;
  bool doubled = false;
  // The modelled time that hides a layer's filters staged whole (schedule/emit.hpp): its first
  // chunk moves L3 -> L2 from the start of the previous layer with filters, p (once p's chunk has
  // landed), or, when p stages one chunk, from the last filter block of the filtered layer
  // before p (stage_second_ahead). So: the layers since p began, plus that last block's share.
  std::uint64_t since_previous = 0;   // modelled cycles since p began
  std::uint64_t last_block_of_p = 0;  // p's cycles / its filter blocks
  std::uint64_t last_block_before_p = 0;
  int chunks_of_p = 0;
  for (std::size_t n = 0; n < NN; ++n) {
    layer_l1_plan& layer = plan.layers[n];
    const tile_geometry& geometry = g.nodes[n].geometry;
    if (!layer.tiled || geometry.weight_bytes_per_channel == 0) {
      since_previous += layer.tiled ? layer.solution.cycles : 0;
      continue;
    }
    const std::uint64_t window = since_previous + (chunks_of_p == 1 ? last_block_before_p : 0);
    // A fused block's first-layer filters ride in front of each chunk (filter_chunk_bytes): all
    // of them (depthwise first: its one chunk), or the chunk's channels' (pointwise first).
    const auto chunk_of = [&](int channels) { return planning_detail::filter_chunk_bytes(geometry, channels); };
    const int tile_c = layer.solution.tile.c;
    if (l3_streams && planning_detail::streams_filters(t.levels[2], geometry, tile_c, layer.solution.cycles, window) &&
        2 * chunk_of(tile_c) <= budget) {
      layer.stage_channels = tile_c;
      layer.stage_chunks = (geometry.out_c + tile_c - 1) / tile_c;
      doubled = true;
    } else if (chunk_of(geometry.out_c) <= budget) {
      layer.stage_channels = geometry.out_c;
      layer.stage_chunks = 1;
    } else {
      int blocks = 0;  // L1 channel blocks per chunk: the most that fit twice
      while (2 * chunk_of((blocks + 1) * tile_c) <= budget && (blocks + 1) * tile_c < geometry.out_c) ++blocks;
      if (blocks == 0) {
        fail(static_cast<int>(n), 1, l2_needed + 2 * chunk_of(tile_c), t.levels[1].bytes);
        return plan;
      }
      layer.stage_channels = blocks * tile_c;
      layer.stage_chunks = (geometry.out_c + layer.stage_channels - 1) / layer.stage_channels;
      doubled = true;
    }
    const std::size_t chunk = chunk_of(layer.stage_channels);
    if (chunk > slot_bytes) slot_bytes = chunk;
    since_previous = layer.solution.cycles;
    last_block_before_p = last_block_of_p;
    last_block_of_p = layer.solution.cycles / static_cast<std::uint64_t>((geometry.out_c + tile_c - 1) / tile_c);
    chunks_of_p = layer.stage_chunks;
  }
  // Two slots whenever L2 has room: the next layer's first chunk then stages while this
  // layer's last one still feeds L1 (cross-layer prefetch, schedule/emit.hpp).
  if (2 * slot_bytes <= budget) doubled = true;
  plan.staging_slot[0] = aligned(plan.l2.arena_bytes);
  plan.staging_slot[1] = plan.staging_slot[0] + (doubled ? slot_bytes : 0);
  plan.staging_bytes = (doubled ? 2 : 1) * slot_bytes;
  // The spilled activations' staging slots follow the filter slots.
  const std::size_t spill_base = plan.staging_slot[0] + plan.staging_bytes;
  plan.spill_input_slot = {spill_base, spill_base + spill.input};
  plan.spill_output_slot = {spill_base + 2 * spill.input, spill_base + 2 * spill.input + spill.output};
  plan.l2_bytes = spill_base + plan.spill_staging_bytes;
  return plan;
}

/// `plan` (of `g` on `t`) with L1 forwarding decided (planning/l1_forwarding.hpp): one-tile
/// layers that read the previous layer's result where it was computed. A step of its own, which
/// the tiled executor evaluates apart from plan_for, so that each stays within one constant
/// evaluation's budget at a thousand layers (tests/static/test_planning_scale.cpp).
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr target_plan<NT, NN> with_l1_forwarding(const graph_summary<NT, NI, NO, NN>& g, const target_desc& t,
                                                 target_plan<NT, NN> plan) {
  if (!plan.fits || !t.l1_forwarding) return plan;
  planning_detail::forward_in_l1(g, plan, t.levels[0].bytes);
  plan.local[0].bytes = plan.l1_bytes;
  return plan;
}

/// The plan of `g` on `t`, every layer's tile solved here.
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr target_plan<NT, NN> plan_for(const graph_summary<NT, NI, NO, NN>& g, const target_desc& t) {
  return plan_for(g, t, solve_layers(g, t));
}

}  // namespace tessera

namespace tessera {

/// The smallest L1 a network can be planned with on `t` (every tiled layer at its smallest
/// tile), and the L1 at which every layer runs as one tile: the two ends of an L1 sweep.
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr std::size_t smallest_l1_bytes(const graph_summary<NT, NI, NO, NN>& g, const target_desc& t) {
  std::size_t bytes = 0;
  const auto engines = dispatch_layers(g, t);
  for (std::size_t n = 0; n < NN; ++n) {
    if (g.nodes[n].geometry.kind != tiling_kind::tiled || engines[n].engine != 0) continue;
    const std::size_t need = tiling_detail::smallest_bytes(problem_of(g, t, n, 0));
    if (need > bytes) bytes = need;
  }
  return bytes;
}

template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr std::size_t untiled_l1_bytes(const graph_summary<NT, NI, NO, NN>& g, const target_desc& t) {
  std::size_t bytes = 0;
  const auto engines = dispatch_layers(g, t);
  for (std::size_t n = 0; n < NN; ++n) {
    const tile_geometry& geo = g.nodes[n].geometry;
    if (geo.kind != tiling_kind::tiled || engines[n].engine != 0) continue;
    const std::size_t need = cost_of(problem_of(g, t, n, 0), {geo.out_h, geo.out_w, geo.out_c}).total_bytes;
    if (need > bytes) bytes = need;
  }
  return bytes;
}

}  // namespace tessera

namespace tessera {

namespace planning_detail {
constexpr target_desc without_l2(target_desc t) {
  t.levels[1].bytes = 0;
  return t;
}
}  // namespace planning_detail

/// A small L2 a network still plans with on a three-level target `t` (L1 as given): the L2
/// need once the planner has spilled every activation it can to L3 (or none, if that needs
/// less), plus the smallest filter staging. At this size filters are staged in chunks and, with
/// a small L1, activations spill to L3: the end of an L2 sweep that forces the L3 step. (One planning pass, not a
/// search: a bisection over the planner exceeds the compiler's constexpr budget on ResNet-8.)
/// Takes the layers' tiles on `t` without L2 already solved (`layer_solutions` of
/// `planning_detail::without_l2(t)`: see `smallest_l2`), or solves them in the same evaluation.
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr std::size_t smallest_l2_bytes(const graph_summary<NT, NI, NO, NN>& g, const target_desc& t,
                                        const std::array<tile_solution, NN>& solutions_without_l2) {
  const auto plan = plan_for(g, planning_detail::without_l2(t), solutions_without_l2);  // fails at L2, after spilling all it can
  std::size_t filters = 0;
  for (std::size_t n = 0; n < NN; ++n) {
    const std::size_t need = planning_detail::min_filter_staging(plan.layers[n], g.nodes[n].geometry);
    if (need > filters) filters = need;
  }
  // Spilling costs L2 slots as large as the L1 tiles: with a roomy L1 it may not pay.
  const std::size_t spilled = plan.l2.arena_bytes + plan.io_bytes + plan.spill_staging_bytes + filters;
  const std::size_t kept = plan_arena(g, {}, true, t.kernels).arena_bytes + plan.io_bytes + filters;
  return spilled < kept ? spilled : kept;
}

template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr std::size_t smallest_l2_bytes(const graph_summary<NT, NI, NO, NN>& g, const target_desc& t) {
  return smallest_l2_bytes(g, t, solve_layers(g, planning_detail::without_l2(t)));
}

/// `smallest_l2_bytes` with each layer's tile solved in its own constant evaluation, as an
/// executor plans (within clang's and GCC's default limits for networks of any length).
template <const auto& Summary, target_desc Target>
inline constexpr std::size_t smallest_l2 =
    smallest_l2_bytes(Summary, Target, layer_solutions<Summary, planning_detail::without_l2(Target)>);

}  // namespace tessera
