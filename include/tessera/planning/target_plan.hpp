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

#include <tessera/graph/network.hpp>
#include <tessera/planning/arena_plan.hpp>
#include <tessera/planning/tile_solver.hpp>
#include <tessera/target/target.hpp>

namespace tessera {

struct layer_l1_plan {
  bool tiled = false;  ///< false: runs on its L2 buffers (see tiling_kind::in_place)
  tile_solution solution{};
  std::array<std::size_t, 2> input{};    ///< L1 offsets of the input tile buffers (ping, pong)
  std::array<std::size_t, 2> output{};   ///< ... of the output tile buffers
  std::array<std::size_t, 2> weights{};  ///< ... of the filter tile buffers
  std::size_t scratch = 0;
  std::size_t bytes = 0;  ///< L1 bytes the layer uses
  /// Three-level targets: filters live in L3 and reach L1 through L2 in chunks of this many
  /// output channels (a multiple of the L1 tile's channels, or all of them); 0 = not staged.
  int stage_channels = 0;
  int stage_chunks = 0;
};

template <std::size_t NT, std::size_t NN>
struct target_plan {
  arena_plan<NT, NN> l2{};
  std::array<layer_l1_plan, NN> layers{};
  std::size_t l1_bytes = 0;  ///< L1 the network needs (largest layer)
  std::size_t io_bytes = 0;  ///< graph inputs and outputs, which also live in L2
  /// L2 region where filters staged from L3 land: two slots after the activation arena
  /// (one when no layer needs more than one chunk).
  std::array<std::size_t, 2> staging_slot{};
  std::size_t staging_bytes = 0;
  std::size_t l2_bytes = 0;  ///< arena + staging: the L2 buffer the caller provides
  // The first failure, if any:
  bool fits = true;
  int failing_node = 0;
  int failing_level = 0;
  std::size_t needed = 0;
  std::size_t available = 0;
};

namespace planning_detail {

/// Lays out one layer's L1 buffers: inputs, outputs, filters (each twice when doubled), scratch.
constexpr layer_l1_plan lay_out_l1(const tile_solution& s) {
  layer_l1_plan l{};
  l.tiled = true;
  l.solution = s;
  std::size_t at = 0;
  const auto place = [&](std::array<std::size_t, 2>& slots, std::size_t bytes, bool doubled) {
    slots[0] = at;
    at += tiling_detail::aligned(bytes);
    slots[1] = slots[0];
    if (doubled) {
      slots[1] = at;
      at += tiling_detail::aligned(bytes);
    }
  };
  place(l.input, s.cost.input_bytes, s.cost.activations_doubled);
  place(l.output, s.cost.output_bytes, s.cost.activations_doubled);
  place(l.weights, s.cost.constant_bytes, s.cost.constants_doubled);
  l.scratch = at;
  at += tiling_detail::aligned(s.cost.scratch_bytes);
  l.bytes = at;
  return l;
}
}  // namespace planning_detail

template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr target_plan<NT, NN> plan_for(const graph_summary<NT, NI, NO, NN>& g, const target_desc& t) {
  target_plan<NT, NN> plan{};
  plan.l2 = plan_arena(g);
  for (tensor_id id : g.inputs) plan.io_bytes += g.tensors[static_cast<std::size_t>(id)].bytes();
  for (tensor_id id : g.outputs) plan.io_bytes += g.tensors[static_cast<std::size_t>(id)].bytes();
  if (t.level_count < 2) return plan;  // flat memory: nothing to tile

  const auto fail = [&](int node, int level, std::size_t needed, std::size_t available) {
    if (!plan.fits) return;
    plan.fits = false;
    plan.failing_node = node;
    plan.failing_level = level;
    plan.needed = needed;
    plan.available = available;
  };

  // L1: every tiled layer, solved for the whole L1 (layers run one at a time).
  for (std::size_t n = 0; n < NN; ++n) {
    const tile_geometry& geometry = g.nodes[n].geometry;
    if (geometry.kind != tiling_kind::tiled) continue;
    const tile_problem problem{geometry, t.levels[0].bytes, t.double_buffering, t.cores, t.micro_tile_channels,
                               t.micro_tile_width};
    const tile_solution s = solve_tiles(problem);
    if (!s.feasible) {
      fail(static_cast<int>(n), 0, s.smallest_bytes, t.levels[0].bytes);
      continue;
    }
    plan.layers[n] = planning_detail::lay_out_l1(s);
    if (plan.layers[n].bytes > plan.l1_bytes) plan.l1_bytes = plan.layers[n].bytes;
  }

  // L2: the activation arena plus the caller's input and output buffers. Name the layer where
  // the most bytes are live: that is where the arena peaks.
  const std::size_t l2_needed = plan.l2.arena_bytes + plan.io_bytes;
  plan.l2_bytes = plan.l2.arena_bytes;
  if (l2_needed > t.levels[1].bytes) {
    fail(plan.l2.peak_step, 1, l2_needed, t.levels[1].bytes);
    return plan;
  }
  if (t.level_count < 3 || !plan.fits) return plan;

  // L3 -> L2 (DORY's "L3-tile w" stage): filters live in L3; each layer's filters are staged in
  // what L2 has left, whole when they fit, else in double-buffered chunks of output channels
  // (a multiple of the L1 tile's channels, so an L1 filter tile never straddles two chunks).
  using tiling_detail::aligned;
  const std::size_t budget = t.levels[1].bytes - l2_needed;
  std::size_t slot_bytes = 0;
  bool doubled = false;
  for (std::size_t n = 0; n < NN; ++n) {
    layer_l1_plan& layer = plan.layers[n];
    const tile_geometry& geometry = g.nodes[n].geometry;
    if (!layer.tiled || geometry.weight_bytes_per_channel == 0) continue;
    const std::size_t per_channel = geometry.weight_bytes_per_channel;
    const int tile_c = layer.solution.tile.c;
    if (aligned(per_channel * static_cast<std::size_t>(geometry.out_c)) <= budget) {
      layer.stage_channels = geometry.out_c;
      layer.stage_chunks = 1;
    } else {
      int blocks = 0;  // L1 channel blocks per chunk: the most that fit twice
      while (2 * aligned(per_channel * static_cast<std::size_t>((blocks + 1) * tile_c)) <= budget &&
             (blocks + 1) * tile_c < geometry.out_c)
        ++blocks;
      if (blocks == 0) {
        fail(static_cast<int>(n), 1, l2_needed + 2 * aligned(per_channel * static_cast<std::size_t>(tile_c)),
             t.levels[1].bytes);
        return plan;
      }
      layer.stage_channels = blocks * tile_c;
      layer.stage_chunks = (geometry.out_c + layer.stage_channels - 1) / layer.stage_channels;
      doubled = true;
    }
    const std::size_t chunk = aligned(per_channel * static_cast<std::size_t>(layer.stage_channels));
    if (chunk > slot_bytes) slot_bytes = chunk;
  }
  plan.staging_slot[0] = aligned(plan.l2.arena_bytes);
  plan.staging_slot[1] = plan.staging_slot[0] + (doubled ? slot_bytes : 0);
  plan.staging_bytes = (doubled ? 2 : 1) * slot_bytes;
  plan.l2_bytes = plan.staging_slot[0] + plan.staging_bytes;
  return plan;
}

}  // namespace tessera

namespace tessera {

/// The smallest L1 a network can be planned with on `t` (every tiled layer at its smallest
/// tile), and the L1 at which every layer runs as one tile: the two ends of an L1 sweep.
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr std::size_t smallest_l1_bytes(const graph_summary<NT, NI, NO, NN>& g, const target_desc& t) {
  std::size_t bytes = 0;
  for (const node_summary& n : g.nodes) {
    if (n.geometry.kind != tiling_kind::tiled) continue;
    const tile_problem p{n.geometry, 0, t.double_buffering, t.cores, t.micro_tile_channels, t.micro_tile_width};
    const std::size_t need = tiling_detail::smallest_bytes(p);
    if (need > bytes) bytes = need;
  }
  return bytes;
}

template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr std::size_t untiled_l1_bytes(const graph_summary<NT, NI, NO, NN>& g, const target_desc& t) {
  std::size_t bytes = 0;
  for (const node_summary& n : g.nodes) {
    if (n.geometry.kind != tiling_kind::tiled) continue;
    const tile_geometry& geo = n.geometry;
    const tile_problem p{geo, 0, t.double_buffering, t.cores, t.micro_tile_channels, t.micro_tile_width};
    const std::size_t need = cost_of(p, {geo.out_h, geo.out_w, geo.out_c}).total_bytes;
    if (need > bytes) bytes = need;
  }
  return bytes;
}

}  // namespace tessera

namespace tessera {

/// The smallest L2 a network can be planned with on a three-level target `t` (L1 as given):
/// the activations and caller buffers, plus the smallest filter staging any layer accepts
/// (its filters whole, or two chunks of one L1 channel block). Ends an L2 sweep that forces
/// L3 staging in chunks.
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr std::size_t smallest_l2_bytes(const graph_summary<NT, NI, NO, NN>& g, const target_desc& t) {
  using tiling_detail::aligned;
  target_desc roomy = t;
  roomy.levels[1].bytes = static_cast<std::size_t>(-1) / 4;
  const auto plan = plan_for(g, roomy);
  std::size_t staging = 0;
  for (std::size_t n = 0; n < NN; ++n) {
    const layer_l1_plan& layer = plan.layers[n];
    const std::size_t per_channel = g.nodes[n].geometry.weight_bytes_per_channel;
    if (!layer.tiled || per_channel == 0) continue;
    const std::size_t whole = aligned(per_channel * static_cast<std::size_t>(g.nodes[n].geometry.out_c));
    const std::size_t two_blocks = 2 * aligned(per_channel * static_cast<std::size_t>(layer.solution.tile.c));
    const std::size_t need = whole < two_blocks ? whole : two_blocks;
    if (need > staging) staging = need;
  }
  return plan.l2.arena_bytes + plan.io_bytes + staging;
}

}  // namespace tessera
