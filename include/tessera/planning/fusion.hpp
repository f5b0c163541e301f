// Fused depthwise/pointwise blocks (seeds/003: depthwise/pointwise fusion): a depthwise
// convolution and the pointwise convolution next to it run tile by tile as one layer, the
// intermediate map held in L1 for the tile instead of travelling to L2 and back. The network
// type does not change: the planner rewrites the graph summary it plans.
//
// Two variants, over output tiles of rows and columns:
// - DW -> PW (the paper's first): a tile loads the depthwise input window (halo included), the
//   depthwise kernel writes all intermediate channels of the tile into L1 scratch ([h][w][C],
//   the layout the pointwise kernel reads), the pointwise kernel computes the tile's outputs
//   from it. Output channels are not split into blocks: each block would recompute the
//   depthwise tile.
// - PW -> DW over row, column and channel tiles: a tile loads the pointwise input under the
//   depthwise window of its outputs (halo included, all the pointwise layer's input channels),
//   the pointwise kernel writes the window's intermediate pixels for the tile's channels
//   ([rows][cols][c]: a depthwise channel reads only its own), the depthwise kernel computes
//   the tile's outputs from them, padding where the window leaves the map exactly as the
//   unfused layer does. Each filter block loads the pointwise filters of its channels beside
//   the depthwise ones. A tile over the whole map is the paper's channel-wise variant (an
//   intermediate of a channel slice of the whole map, nothing recomputed, the input loaded
//   once per channel block); whole-width tiles carry the rows their windows share with the
//   tile above (the paper's row-wise variant, tile_geometry.hpp carries_rows); narrower tiles
//   recompute the overlap. The solver weighs all of them as tiles of one layer.
// Each kernel is the node's own tile function, so the integers, requantisation included, are
// exactly the unfused network's.
//
// A block is a depthwise (or pointwise) node, the alias nodes after it (Reshape-like nodes that
// only reinterpret the bytes: torch's exports put a Cast between every pair) and the pointwise
// (or depthwise) node.
//
// The selector (choose_fusion): per candidate block, the cost of the fused tile solution
// against the layers' own solutions, under the target's criterion (fusion_policy). The
// network's cost is a sum over layers and a block covers adjacent nodes, so the best set of
// non-overlapping blocks is a shortest path over the node order: cost[i] = min(cost[i-1] +
// node i-1 alone, cost[d] + block d..i-1). Blocks of the two variants overlap (in DW PW DW PW
// every layer but the ends belongs to two candidates); at most one candidate ends at each node
// (a node is depthwise or pointwise), so the programme is exact over every choice of
// non-overlapping blocks in O(nodes), where the paper enumerates 2^M.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include <tessera/graph/network.hpp>
#include <tessera/planning/fusion_selection.hpp>
#include <tessera/planning/target_plan.hpp>
#include <tessera/planning/tile_solver.hpp>
#include <tessera/target/target.hpp>

namespace tessera {

namespace fusion_detail {
/// Block geometry `g` with `first` as the block's first layer (its producer): the intermediate
/// map is `first`'s output, its filters and constants ride with the block's.
constexpr tile_geometry with_producer(tile_geometry g, const tile_geometry& first, fused_order order) {
  g.channel_lockstep = false;  // the block's input: every channel of the first layer's input
  g.const_bytes_fixed += first.const_bytes_fixed + first.const_bytes_per_channel * static_cast<std::size_t>(first.out_c);
  g.intermediate_channels = first.out_c;
  g.intermediate_elem_bytes = first.out_elem_bytes;
  g.producer_weight_bytes = first.weight_bytes_per_channel * static_cast<std::size_t>(first.out_c);
  g.order = order;
  return g;
}
}  // namespace fusion_detail

/// The geometry of the block of depthwise layer `dw` and the pointwise layer `pw` after it.
constexpr tile_geometry fused_geometry(const tile_geometry& dw, const tile_geometry& pw) {
  tile_geometry g = pw;
  g.in_h = dw.in_h, g.in_w = dw.in_w, g.in_c = dw.in_c;
  g.in_elem_bytes = dw.in_elem_bytes;
  g.kernel_h = dw.kernel_h, g.kernel_w = dw.kernel_w, g.stride_h = dw.stride_h, g.stride_w = dw.stride_w;
  g.dilation_h = dw.dilation_h, g.dilation_w = dw.dilation_w;
  g.pad_top = dw.pad_top, g.pad_left = dw.pad_left, g.pad_bottom = dw.pad_bottom, g.pad_right = dw.pad_right;
  g.pad_value = dw.pad_value;
  g.channel_step = pw.out_c;
  return fusion_detail::with_producer(g, dw, fused_order::depthwise_first);
}

/// The geometry of the block of pointwise layer `pw` and the depthwise layer `dw` after it: the
/// depthwise layer's window and output over the pointwise layer's input channels. Output
/// channels split into blocks like any convolution's (each block reloads the input window and
/// loads its channels' pointwise filters), the pointwise layer's bias and requantisation per
/// channel with the depthwise layer's.
constexpr tile_geometry fused_geometry_pointwise_first(const tile_geometry& pw, const tile_geometry& dw) {
  tile_geometry g = dw;
  g.in_c = pw.in_c;
  g.in_elem_bytes = pw.in_elem_bytes;  // channel_step: the depthwise layer's
  g = fusion_detail::with_producer(g, pw, fused_order::pointwise_first);
  g.const_bytes_fixed -= pw.const_bytes_per_channel * static_cast<std::size_t>(pw.out_c);
  g.const_bytes_per_channel += pw.const_bytes_per_channel;
  return g;
}

namespace fusion_detail {

constexpr bool depthwise_layer(const node_summary& n) {
  const tile_geometry& g = n.geometry;
  return n.kind == op_kind::conv && g.kind == tiling_kind::tiled && g.channel_lockstep &&
         g.weight_bytes_per_channel > 0 && !g.fused() && n.input_count == 1 && n.output_count == 1;
}

constexpr bool pointwise_layer(const node_summary& n) {
  const tile_geometry& g = n.geometry;
  return n.kind == op_kind::conv && g.kind == tiling_kind::tiled && !g.channel_lockstep && g.channel_step == 1 &&
         g.weight_bytes_per_channel > 0 && !g.fused() && g.kernel_h == 1 && g.kernel_w == 1 && g.stride_h == 1 &&
         g.stride_w == 1 && g.pad_top + g.pad_left + g.pad_bottom + g.pad_right == 0 && g.in_h == g.out_h &&
         g.in_w == g.out_w && g.in_operands == 1 && n.input_count == 1 && n.output_count == 1;
}


/// How many nodes read each tensor of `g`, a graph output counting as one more reader: a tensor
/// with one reader is private to it. Counted once per graph (O(nodes + tensors)); scanning the
/// graph for the readers of each candidate's tensors was O(nodes^2), and 1,500 layers exceeded
/// GCC's constexpr budget in it.
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr std::array<int, NT> reader_counts(const graph_summary<NT, NI, NO, NN>& g) {
  std::array<int, NT> readers{};
  for (tensor_id o : g.outputs) ++readers[static_cast<std::size_t>(o)];
  for (const node_summary& node : g.nodes)
    for (int k = 0; k < node.input_count; ++k) {
      const tensor_id t = node.inputs[static_cast<std::size_t>(k)];
      bool again = false;  // a node that reads t twice is one reader
      for (int j = 0; j < k; ++j) again = again || node.inputs[static_cast<std::size_t>(j)] == t;
      if (!again) ++readers[static_cast<std::size_t>(t)];
    }
  return readers;
}

/// What fused_producer asks of the whole graph, computed once by callers that ask about every node.
template <std::size_t NT, std::size_t NN>
struct block_context {
  std::array<layer_engine, NN> engines;  ///< dispatch_layers(g, t)
  std::array<int, NT> readers;           ///< reader_counts(g)
};

template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr block_context<NT, NN> block_context_of(const graph_summary<NT, NI, NO, NN>& g, const target_desc& t) {
  return {dispatch_layers(g, t), reader_counts(g)};
}
}  // namespace fusion_detail

/// The first node of the block that node `last` of `g` would end on `t`, or -1: a depthwise
/// node before pointwise node `last`, or a pointwise node before depthwise node `last`.
/// Between the two only alias nodes (Reshape-like: the same bytes under another type or shape,
/// e.g. the Cast nodes of torch's exports) may stand, each the only reader of the tensor before
/// it; no tensor between them is a graph output or read by another node.
/// `context` is fusion_detail::block_context_of(g, t), computed once by callers that ask about
/// every node.
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr int fused_producer(const graph_summary<NT, NI, NO, NN>& g, const target_desc& t, std::size_t last,
                             const fusion_detail::block_context<NT, NN>& context) {
  if (last == 0 || last >= NN || t.level_count < 2 || t.fusion == fusion_policy::off) return -1;
  const node_summary& b = g.nodes[last];
  const bool pointwise_last = fusion_detail::pointwise_layer(b);
  if (!pointwise_last && (!t.fuse_pointwise_first || !fusion_detail::depthwise_layer(b))) return -1;
  tensor_id between = b.inputs[0];
  for (std::size_t n = last; n-- > 0;) {
    const node_summary& a = g.nodes[n];
    // `between` is read by the node after `a` (pw or an alias): one reader in all means by it
    // alone, and no graph output.
    if (a.output_count != 1 || a.outputs[0] != between || context.readers[static_cast<std::size_t>(between)] != 1)
      return -1;
    if (a.is_alias && a.input_count == 1 && !a.absorbed) {  // look through it
      between = a.inputs[0];
      continue;
    }
    const bool pairs = pointwise_last ? fusion_detail::depthwise_layer(a) : fusion_detail::pointwise_layer(a);
    if (!pairs || a.geometry.out_elem_bytes != b.geometry.in_elem_bytes || a.geometry.out_c != b.geometry.in_c ||
        a.geometry.batch != b.geometry.batch || a.geometry.out_h != b.geometry.in_h ||
        a.geometry.out_w != b.geometry.in_w)
      return -1;
    // An accelerator's layers are its own (planning/dispatch.hpp): blocks are CPU blocks.
    if (context.engines[last].engine != 0 || context.engines[n].engine != 0) return -1;
    return static_cast<int>(n);
  }
  return -1;
}

template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr int fused_producer(const graph_summary<NT, NI, NO, NN>& g, const target_desc& t, std::size_t last) {
  return fused_producer(g, t, last, fusion_detail::block_context_of(g, t));
}

/// Whether node `last` of `g` can end a fused block on `t` (see fused_producer).
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr bool fusable(const graph_summary<NT, NI, NO, NN>& g, const target_desc& t, std::size_t last) {
  return fused_producer(g, t, last) >= 0;
}

/// The block of node `first` and node `last`, `distance` nodes after it (a depthwise and a
/// pointwise convolution, in either order): `last` with the fused geometry, reading `first`'s input.
constexpr node_summary fused_node(const node_summary& first, const node_summary& last, int distance) {
  node_summary block = last;
  block.geometry = last.geometry.channel_lockstep ? fused_geometry_pointwise_first(first.geometry, last.geometry)
                                                  : fused_geometry(first.geometry, last.geometry);
  block.inputs[0] = first.inputs[0];
  block.macs += first.macs;
  block.constant_bytes += first.constant_bytes;
  block.producer_offset = distance;
  return block;
}

/// `g` with the blocks ending at the nodes marked in `fused` merged: the last node becomes the
/// block (fused geometry, the first node's input), the first node and the aliases between them
/// are absorbed. `fused[n]` holds the first node's distance, 0 for no block.
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr graph_summary<NT, NI, NO, NN> fuse(const graph_summary<NT, NI, NO, NN>& g, const std::array<int, NN>& fused) {
  graph_summary<NT, NI, NO, NN> out = g;
  for (std::size_t n = 1; n < NN; ++n) {
    if (fused[n] <= 0) continue;
    const auto d = n - static_cast<std::size_t>(fused[n]);
    node_summary& first = out.nodes[d];
    out.nodes[n] = fused_node(first, out.nodes[n], fused[n]);
    first.geometry.kind = tiling_kind::in_place;
    for (std::size_t k = d; k < n; ++k) {  // the first node and the aliases after it
      node_summary& absorbed = out.nodes[k];
      absorbed.absorbed = true;
      absorbed.input_count = absorbed.output_count = 0;  // no buffers of their own in the arena
      absorbed.scratch = {};
    }
  }
  return out;
}

/// Every candidate block's tiling problem, at the index of its last node.
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr std::array<layer_problem, NN> block_problems_of(const graph_summary<NT, NI, NO, NN>& g,
                                                          const target_desc& t) {
  std::array<layer_problem, NN> out{};
  if (planning_detail::l2_fails_untiled(g, t)) return out;  // as layer_problems_of
  const auto context = fusion_detail::block_context_of(g, t);
  for (std::size_t n = 1; n < NN; ++n) {
    const int d = fused_producer(g, t, n, context);
    if (d < 0) continue;
    // The fused node alone, not the whole fused graph: a copy of the graph per candidate was
    // O(nodes^2) (8.6 GB of GCC's memory for 750 blocks).
    const node_summary& first = g.nodes[static_cast<std::size_t>(d)];
    out[n] = {true, node_problem(t, fused_node(first, g.nodes[n], static_cast<int>(n) - d), &first, t.levels[0].bytes)};
  }
  return out;
}

/// What the selector minimises for one layer (or block) with solution `s`: its traffic, or its
/// modelled time, which the solver already computed (tile_solution::cycles is layer_cycles of
/// its tile): recomputing it for every layer and candidate in the selector's one evaluation
/// took a 1,500-layer chain past clang's constexpr step limit.
/// The time counts what L1 forwarding saves a one-tile layer only on the sides where it is
/// real: forwarding (planning/l1_forwarding.hpp) keeps a result in L1 between two layers that
/// both run as one tile, while layer_cycles credits a one-tile layer with both sides whatever
/// its neighbours do. `one_tile_before` / `one_tile_after`: whether the layer that runs before
/// (after) it forwards to it (one_tile_neighbours_of). Without the credit an unfused pair of
/// one-tile layers lost to its block, which forwarding made no faster (miniMobileNet on gap8
/// fused 5.3% slower than unfused); with it on both sides always, a one-tile layer next to a
/// tiled one won against its block, which did save the round trip (the sweep of
/// tests/runtime/test_fusion.cpp at 3 kB of L1). The traffic criterion counts the same sides in
/// bytes; `always` prices every layer and block alike, so the most layers go into blocks.
constexpr std::uint64_t fusion_cost(fusion_policy policy, const tile_problem& p, const tile_solution& s,
                                    bool one_tile_before, bool one_tile_after) {
  if (policy == fusion_policy::always) return 1;  // a block (1) always beats its two layers (2)
  if (policy == fusion_policy::by_traffic) {
    const std::uint64_t bytes = layer_traffic(p, s.tile);
    if (s.cost.tiles != 1) return bytes;
    return bytes - (one_tile_before ? input_box_bytes(p.layer, s.tile) : 0) -
           (one_tile_after ? output_box_bytes(p.layer, s.tile) : 0);
  }
  if (s.cost.tiles != 1) return s.cycles;
  return s.cycles + (one_tile_before ? 0 : forwarded_load_saving(p, s.tile)) +
         (one_tile_after ? 0 : forwarded_store_saving(p, s.tile));
}

/// Per node, whether its result reaches the layer that runs after it (`after`) in L1, and
/// whether its input comes so from the layer before (`before`), alias nodes looked through
/// (fusion_cost's forwarding sides): as planning/l1_forwarding.hpp decides, the target
/// forwards, both layers run as one tile unfused and L1 holds the first layer's buffers beside
/// the second's, the forwarded operand shared. Where a neighbour is itself in a block this is an estimate.
template <std::size_t NN>
struct one_tile_neighbours {
  std::array<bool, NN> before{}, after{};
};

template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr one_tile_neighbours<NN> one_tile_neighbours_of(const graph_summary<NT, NI, NO, NN>& g,
                                                         const std::array<layer_problem, NN>& layers,
                                                         const std::array<tile_solution, NN>& layer_tiles) {
  const auto one_tile = [&](std::size_t n) {
    return layers[n].tiled && layer_tiles[n].feasible && layer_tiles[n].cost.tiles == 1;
  };
  const auto forwards = [&](std::size_t a, std::size_t b) {
    if (!layers[a].problem.latency.forwarded_output || !layers[b].problem.latency.forwarded_input || !one_tile(a) ||
        !one_tile(b))
      return false;
    const tile_cost &first = layer_tiles[a].cost, &second = layer_tiles[b].cost;
    return first.total_bytes + second.total_bytes <= layers[b].problem.capacity + first.output_bytes;
  };
  one_tile_neighbours<NN> out{};
  std::size_t before = NN;
  for (std::size_t n = 0; n < NN; ++n) {
    if (planning_detail::runs_no_steps(g, n)) continue;
    if (before < NN && forwards(before, n)) out.before[n] = out.after[before] = true;
    before = n;
  }
  return out;
}

/// The blocks to fuse, marked at their last node with the distance to their first node (see
/// the header comment for the selection).
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr std::array<int, NN> choose_fusion(const graph_summary<NT, NI, NO, NN>& g, const target_desc& t,
                                            const std::array<layer_problem, NN>& layers,
                                            const std::array<tile_solution, NN>& layer_tiles,
                                            const std::array<layer_problem, NN>& blocks,
                                            const std::array<tile_solution, NN>& block_tiles) {
  using fusion_detail::priced;
  if (t.fusion == fusion_policy::off) return {};
  const one_tile_neighbours<NN> neighbours = one_tile_neighbours_of(g, layers, layer_tiles);
  const bool by_bytes = t.fusion != fusion_policy::by_latency;
  const bool by_time = t.fusion == fusion_policy::by_latency || t.fusion == fusion_policy::by_traffic_no_slower;
  const auto price = [&](const tile_problem& p, const tile_solution& s, bool before, bool after) {
    if (t.fusion == fusion_policy::always) {  // one price on both scales: fusion_cost's
      const std::uint64_t alike = fusion_cost(fusion_policy::always, p, s, before, after);
      return priced{alike, alike};
    }
    return priced{by_bytes ? fusion_cost(fusion_policy::by_traffic, p, s, before, after) : 0,
                  by_time ? fusion_cost(fusion_policy::by_latency, p, s, before, after) : 0};
  };
  // The user's overrides, by depthwise node: 1 forced fused (the block it begins), -1 forced
  // unfused (no block holds it), 0 the criterion decides.
  const auto overridden = [&](std::size_t depthwise) {
    for (const fusion_override& o : t.fusion_overrides)
      if (o.depthwise.text[0] != '\0' && o.depthwise == g.nodes[depthwise].name) return o.fused ? 1 : -1;
    return 0;
  };
  const auto context = fusion_detail::block_context_of(g, t);
  fusion_detail::fusion_candidates<NN> c{};
  for (std::size_t n = 0; n < NN; ++n) {
    if (layers[n].tiled && layer_tiles[n].feasible)
      c.alone[n] = price(layers[n].problem, layer_tiles[n], neighbours.before[n], neighbours.after[n]);
    c.first[n] = -1;
    if (!blocks[n].tiled || !block_tiles[n].feasible) continue;
    const int d = fused_producer(g, t, n, context);
    c.first[n] = d;
    c.choice[n] = blocks[n].problem.layer.pointwise_first() ? (overridden(n) < 0 ? -1 : 0)
                                                            : overridden(static_cast<std::size_t>(d));
    if (c.choice[n] >= 0)  // forced blocks too: what the budget of by_traffic_no_slower spends
      c.block[n] = price(blocks[n].problem, block_tiles[n], neighbours.before[static_cast<std::size_t>(d)],
                         neighbours.after[n]);
  }
  if (t.fusion == fusion_policy::by_traffic_no_slower) return fusion_detail::fewest_bytes_no_slower(c).fused;
  if (by_time) return fusion_detail::cheapest(c, [](const priced& p) { return p.cycles; }).fused;
  return fusion_detail::cheapest(c, [](const priced& p) { return p.bytes; }).fused;
}

template <const auto& Summary, target_desc Target>
inline constexpr auto block_problems = block_problems_of(Summary, Target);

/// The blocks the selector fuses for network summary `Summary` on `Target`, each candidate
/// solved in its own constant evaluation (as layer_solutions).
template <const auto& Summary, target_desc Target>
inline constexpr auto fusion_choice =
    choose_fusion(Summary, Target, layer_problems<Summary, Target>, layer_solutions<Summary, Target>,
                  block_problems<Summary, Target>, solved_layers<block_problems<Summary, Target>>);

/// The summary the planner plans for `Target`: `Summary` with the chosen blocks fused.
template <const auto& Summary, target_desc Target>
inline constexpr auto fused_summary = fuse(Summary, fusion_choice<Summary, Target>);

}  // namespace tessera
