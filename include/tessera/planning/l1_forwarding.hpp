// A layer's result kept in L1 for the next layer ("forwarding").
//
// When a layer runs as one tile, its whole output sits in one L1 slot after it computes. If
// the next layer also runs as one tile and reads that tensor whole as one of its operands,
// the bytes it would load are exactly those bytes: dense, in the same order (a whole box is
// the tensor itself, whatever extents each side sees it under). The next layer then reads its
// operand where the previous layer wrote it, and the store -> load round trip through L2 —
// which a chain of one-tile layers cannot hide, since the load waits for the store and the
// compute for the load — disappears. The store stays when anything else reads the tensor (a
// later layer, the caller); otherwise it is dropped too.
//
// The plan carries the decision (layer_l1_plan::forwarded_operand, output_forwarded,
// output_unstored); the step emitter skips the load (and the store), the hazard proof tracks
// the slot from the producer's compute to the consumer's read, and the executor needs nothing:
// the consumer's input slot is placed over the producer's output slot, so its operand address
// is the one it always computes. The consumer's other buffers are placed first-fit around
// both layers' slots and the next layer's (so that the loads of the layer after can still run
// while it computes); a pair that cannot be placed so within L1 is left as it was.
#pragma once

#include <array>
#include <cstddef>

#include <tessera/graph/network.hpp>
#include <tessera/planning/l1_layout.hpp>
#include <tessera/planning/no_op_aliases.hpp>
#include <tessera/schedule/tile_walk.hpp>  // operand_box: the one place for a tile's boxes

namespace tessera::planning_detail {

/// Bytes [lo, hi) of L1.
struct l1_range {
  std::size_t lo = 0, hi = 0;
  constexpr bool meets(const l1_range& o) const { return lo < hi && o.lo < o.hi && lo < o.hi && o.lo < hi; }
};

/// L1 ranges that buffers occupy (exact bytes, not their aligned slots). A C array: the pass
/// runs for every layer pair of a 1,500-layer chain inside GCC's constexpr budget, which counts
/// every std::array::operator[] as a call.
struct l1_ranges {
  static constexpr int capacity = 24;
  l1_range at[capacity]{};
  int count = 0;
  constexpr void add(std::size_t lo, std::size_t bytes) {
    if (bytes > 0 && count < capacity) at[count++] = {lo, lo + bytes};
  }
  constexpr bool meets(const l1_range& r) const {
    for (int i = 0; i < count; ++i)
      if (at[i].meets(r)) return true;
    return false;
  }
  constexpr bool meets(const l1_ranges& o) const {
    for (int i = 0; i < o.count; ++i)
      if (meets(o.at[i])) return true;
    return false;
  }
};

/// Bytes of operand `k` in a one-tile layer's input slot: its box (schedule::operand_box, the
/// box its load would move).
constexpr std::size_t forwarded_bytes(const layer_l1_plan& l, const tile_geometry& g, int k) {
  return schedule::operand_box(g, schedule::position(g, l.solution.tile, 0), k).bytes();
}

/// Adds the L1 ranges of layer `l`'s buffers to `r`. `own_only`: a forwarded operand's bytes
/// left out (they are the previous layer's output slot, which that layer owns); else every
/// byte the layer's compute touches.
constexpr void add_ranges(l1_ranges& r, const layer_l1_plan& l, const tile_geometry& g, bool own_only = false) {
  const tile_cost& c = l.solution.cost;
  const auto both = [&](const std::array<std::size_t, 2>& slots, std::size_t bytes) {
    r.add(slots[0], bytes);
    if (slots[1] != slots[0]) r.add(slots[1], bytes);
  };
  if (own_only && l.forwarded_operand >= 0) {  // the slot around the forwarded operand (one tile: slot 0 only)
    const std::size_t from = operand_offset(l, g, l.forwarded_operand);
    const std::size_t to = from + forwarded_bytes(l, g, l.forwarded_operand);
    r.add(l.input[0], from);
    if (c.input_bytes > to) r.add(l.input[0] + to, c.input_bytes - to);
  } else {
    both(l.input, c.input_bytes);
  }
  both(l.output, c.output_bytes);
  both(l.weights, c.constant_bytes);
  r.add(l.scratch, c.scratch_bytes);
}

/// Whether layer `b`, run right after layer `a`, can load while `a` computes: their buffers
/// share no byte (`b`'s forwarded operand, which is `a`'s output, aside). Pairs without
/// forwarding compare their contiguous blocks, as they were placed (place_for_prefetch).
constexpr bool apart(const layer_l1_plan& a, const tile_geometry& ga, const layer_l1_plan& b, const tile_geometry& gb) {
  if (a.forwarded_operand < 0 && b.forwarded_operand < 0) return l1_disjoint(a, b);
  l1_ranges ra{}, rb{};
  add_ranges(ra, a, ga);
  add_ranges(rb, b, gb, true);
  return !ra.meets(rb);
}

/// Whether the one tile of layer `m` reads operand `k` — tensor `t` — whole, as the one tile
/// of the layer before wrote it.
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN, class Plan>
constexpr bool reads_whole(const graph_summary<NT, NI, NO, NN>& g, const Plan& plan, std::size_t m,
                           int k, std::size_t t) {
  const tile_geometry& geometry = g.nodes[m].geometry;
  const map_box box = schedule::operand_box(geometry, schedule::position(geometry, plan.layers[m].solution.tile, 0), k);
  return box.offset() == 0 && box.bytes() == static_cast<std::size_t>(g.tensors[t].bytes());
}

/// The operand of layer `m` that can read layer `p`'s output in L1, or -1. Through aliases
/// that run nothing (`roots`): their bytes are the output's.
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN, class Plan>
constexpr int forwardable_operand(const graph_summary<NT, NI, NO, NN>& g, const Plan& plan,
                                  const tensor_roots<NT>& roots, std::size_t p, std::size_t m) {
  const layer_l1_plan& a = plan.layers[p];
  const layer_l1_plan& b = plan.layers[m];
  const node_summary& producer = g.nodes[p];
  const node_summary& consumer = g.nodes[m];
  if (!a.tiled || !b.tiled || a.engine != 0 || b.engine != 0) return -1;
  if (a.solution.cost.tiles != 1 || b.solution.cost.tiles != 1 || producer.output_count != 1) return -1;
  // A layer that follows a run-time length computes and moves the live part of its boxes.
  if (producer.growth.capacity > 0 || consumer.growth.capacity > 0) return -1;
  const auto t = static_cast<std::size_t>(producer.outputs[0]);
  if (plan.in_l3[t] || a.solution.cost.output_bytes != static_cast<std::size_t>(g.tensors[t].bytes())) return -1;
  const auto reads_t = [&](int k) {
    return static_cast<std::size_t>(roots.root[static_cast<std::size_t>(consumer.inputs[static_cast<std::size_t>(k)])]) == t;
  };
  int operand = -1;
  for (int k = 0; k < consumer.input_count && k < 2; ++k)
    if (reads_t(k)) {
      if (operand >= 0) return -1;  // read twice (x * x): one slot cannot be both operands
      operand = k;
    }
  for (int k = 2; k < consumer.input_count; ++k)
    if (reads_t(k)) return -1;
  if (operand < 0 || !reads_whole(g, plan, m, operand, t)) return -1;
  return operand;
}

/// Per tensor, how many reads of its bytes there are: one per node input that names it or an
/// alias of it (`roots`; the aliases that run nothing do not read), one more for a graph
/// output (the caller reads it). Counted once for the whole pass: a 1,500-layer chain asks
/// for every layer.
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN, class Plan>
constexpr std::array<int, NT> readers_of(const graph_summary<NT, NI, NO, NN>& g, const Plan& plan,
                                         const tensor_roots<NT>& roots) {
  std::array<int, NT> readers{};
  const auto root = [&](tensor_id t) { return static_cast<std::size_t>(roots.root[static_cast<std::size_t>(t)]); };
  for (tensor_id o : g.outputs) ++readers[root(o)];
  for (std::size_t n = 0; n < NN; ++n) {
    if (runs_nothing(g, plan, n)) continue;
    const node_summary& node = g.nodes[n];
    for (int k = 0; k < node.input_count; ++k) ++readers[root(node.inputs[static_cast<std::size_t>(k)])];
  }
  return readers;
}

/// The L1 bytes layer `l` occupies, coarsely: its block when its buffers are contiguous (as
/// lay_out_l1 and place_for_prefetch leave them), else each buffer (a forwarded layer).
constexpr void add_occupied(l1_ranges& r, const layer_l1_plan& l, const tile_geometry& g) {
  if (l.forwarded_operand < 0) r.add(l.base, l.bytes);
  else add_ranges(r, l, g);
}

/// Places layer `m`'s input slot so that operand `k` lies on layer `p`'s output slot, and its
/// other buffers (output, filters, scratch: one block) at the lowest offset in [0, capacity)
/// clear of both layers and of `next`, the layer that runs after `m` (so that it can still load
/// while `m` computes); false, and `m` unchanged, when they do not fit. A handful of ranges and
/// candidates: the pass stays cheap at a thousand layers.
constexpr bool place_forwarded(layer_l1_plan& m, const tile_geometry& gm, int k, const layer_l1_plan& p,
                               const tile_geometry& gp, const l1_range& next, std::size_t capacity,
                               std::size_t& l1_end) {
  using tiling_detail::aligned;
  const tile_cost& c = m.solution.cost;
  const std::size_t offset = operand_offset(m, gm, k);
  if (p.output[0] < offset) return false;
  const std::size_t in = p.output[0] - offset;
  const std::size_t operand_end = p.output[0] + forwarded_bytes(m, gm, k);
  const std::size_t input_end = in + c.input_bytes, slot_end = in + aligned(c.input_bytes);
  if (slot_end > capacity) return false;
  l1_ranges avoid{};
  if (in < p.output[0] || operand_end < input_end) {
    // The slot's other operand loads once p has computed (the emitter issues a forwarded
    // layer's loads at its start), when only p's result (still being stored, perhaps) is live
    // of p's buffers; the layer after loads while this one computes.
    avoid.add(p.output[0], p.solution.cost.output_bytes);
    avoid.add(next.lo, next.hi - next.lo);
    if (avoid.meets(l1_range{in, p.output[0]}) || avoid.meets(l1_range{operand_end, input_end})) return false;
    avoid.count = 0;
  }
  add_occupied(avoid, p, gp);
  avoid.add(next.lo, next.hi - next.lo);
  avoid.add(in, slot_end - in);
  const std::size_t output = aligned(c.output_bytes), filters = aligned(c.constant_bytes);
  const std::size_t size = output + filters + aligned(c.scratch_bytes);
  std::size_t at = 0;
  bool found = false;
  for (int i = -1; i < avoid.count; ++i) {  // candidates: 0 and the end of each range
    const std::size_t candidate = i < 0 ? 0 : aligned(avoid.at[i].hi);
    if (candidate + size > capacity || (found && candidate >= at)) continue;
    if (!avoid.meets(l1_range{candidate, candidate + size})) {
      at = candidate;
      found = true;
    }
  }
  if (!found) return false;
  m.forwarded_operand = static_cast<std::int8_t>(k);
  m.input = {in, in};  // one tile: slot 0 only
  m.output = {at, at};
  m.weights = {at + output, at + output};
  m.scratch = at + output + filters;
  m.base = in < at ? in : at;
  const std::size_t highest = slot_end > at + size ? slot_end : at + size;
  m.bytes = highest - m.base;
  if (highest > l1_end) l1_end = highest;
  return true;
}

/// The bytes layer `n` loads while the layer before it, `m`, computes, when their buffers sit
/// apart (schedule/emit.hpp open_next): its first filter block, and its first input tile unless
/// it reads m's result (a one-tile layer stores its result after computing it: that load waits).
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr std::size_t prefetched_bytes(const graph_summary<NT, NI, NO, NN>& g, const tensor_roots<NT>& roots,
                                       const layer_l1_plan& l, std::size_t n, std::size_t m) {
  const node_summary& node = g.nodes[n];
  for (int k = 0; k < node.input_count; ++k)
    if (roots.root[static_cast<std::size_t>(node.inputs[static_cast<std::size_t>(k)])] == g.nodes[m].outputs[0])
      return l.solution.cost.constant_bytes;
  const schedule::tile_position first = schedule::position(node.geometry, l.solution.tile, 0);
  std::size_t bytes = l.solution.cost.constant_bytes;
  for (int k = 0; k < node.input_count && k < 2; ++k) bytes += schedule::operand_box(node.geometry, first, k).bytes();
  return bytes;
}

/// The L1 bytes of a one-tile layer's input slot.
constexpr l1_range input_slot(const layer_l1_plan& l) { return {l.input[0], l.input[0] + l.solution.cost.input_bytes}; }

/// Decides, for every pair of consecutive CPU layers, whether the second reads the first's
/// output in L1, and places it so (see the header comment). Runs on a plan whose layers are
/// placed (place_for_prefetch) and whose spills to L3 are known.
/// `Plan`: a target_plan (defined after this header, which it includes).
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN, class Plan>
constexpr void forward_in_l1(const graph_summary<NT, NI, NO, NN>& g, Plan& plan, std::size_t capacity) {
  // The layers in the order they run (has_no_steps: fused-away nodes and aliases that run
  // nothing have no steps).
  const auto next_run = [&](std::size_t n) {
    std::size_t m = n + 1;
    while (m < NN && has_no_steps(g, plan, m)) ++m;
    return m;
  };
  // The block of layer n, which runs after m, when it was placed to load while m computes
  // (empty otherwise): a forwarded m keeps clear of it, so that n keeps its prefetch.
  const auto prefetch_block = [&](std::size_t m, std::size_t n) {
    if (n >= NN || !plan.layers[n].tiled || plan.layers[n].engine != 0 || !l1_disjoint(plan.layers[m], plan.layers[n]))
      return l1_range{};
    return l1_range{plan.layers[n].base, plan.layers[n].base + plan.layers[n].bytes};
  };
  const tensor_roots<NT> roots = roots_of(g, plan);
  const std::array<int, NT> readers = readers_of(g, plan, roots);
  // Whether result `t` needs no store once the next layer reads it in L1: nothing
  // else reads it (another node, the caller, or the caller's buffer it lives in: state).
  const auto unstored_if_forwarded = [&](std::size_t t) { return readers[t] == 1 && plan.l2.tensor_offset[t] >= 0; };
  // The bytes forwarding operand `k` of layer `l` (placed, with geometry `gl`) saves: its load,
  // and the store of its producer's result `t` when that store is dropped.
  const auto saved_bytes = [&](const layer_l1_plan& l, const tile_geometry& gl, int k, std::size_t t) {
    return forwarded_bytes(l, gl, k) * (unstored_if_forwarded(t) ? 2 : 1);
  };
  // A placement of layer m tried while deciding on the layer before (below), kept for m's turn,
  // where it would be computed again from the same state: the pass stays at one placement per
  // layer on a long chain (clang's constexpr step limit).
  struct tried_placement {
    bool valid = false;  // m can read its input in L1, placed so (its block clear of the layer after it)
    int operand = -1;
    layer_l1_plan placed{};
    std::size_t l1_end = 0;
  };
  tried_placement tried{};
  std::size_t p = 0;
  while (p < NN && has_no_steps(g, plan, p)) ++p;
  for (std::size_t m = next_run(p); m < NN; p = m, m = next_run(m)) {
    const std::size_t n = next_run(m);
    const l1_range next = prefetch_block(m, n);
    int k = tried.operand;
    layer_l1_plan placed = tried.placed;
    std::size_t l1_end = tried.l1_end;
    bool over_next = false;  // some buffer of m on n's block (place_forwarded keeps the rest clear)
    if (!tried.valid) {
      k = forwardable_operand(g, plan, roots, p, m);
      placed = plan.layers[m];
      l1_end = plan.l1_bytes;
      if (k >= 0 && !place_forwarded(placed, g.nodes[m].geometry, k, plan.layers[p], g.nodes[p].geometry, next,
                                     capacity, l1_end)) {
        // Not clear of n's block: placed over it, n's prefetch is weighed below.
        placed = plan.layers[m];
        l1_end = plan.l1_bytes;
        if (next.hi == next.lo || !place_forwarded(placed, g.nodes[m].geometry, k, plan.layers[p], g.nodes[p].geometry,
                                                   l1_range{}, capacity, l1_end))
          k = -1;
        over_next = true;
      }
    }
    tried = {};
    if (k < 0) continue;
    // Layer m reads p's result once (forwardable_operand).
    const auto t = static_cast<std::size_t>(g.nodes[p].outputs[0]);
    // The input slot lies where p's result is, which may be in the block of the layer after,
    // n (and m's other buffers may not fit clear of it): then n's loads wait for m's compute,
    // unless n in turn reads m's result in L1 and is placed around m (what the loop does on
    // n's turn: tried here, and kept for it), and that turn keeps it (by the same rule, taken
    // without looking further ahead). Forwarding saves a load and perhaps a store of p's
    // result; it costs, in that case, the overlap of n's first loads with m's compute
    // (prefetched_bytes). The larger number of bytes decides (both move on the same DMA path):
    // an autoencoder's 128-byte codes are not worth its 80 kB layers' prefetch.
    const std::size_t saved = saved_bytes(placed, g.nodes[m].geometry, k, t);
    if (over_next || input_slot(placed).meets(next)) {
      const layer_l1_plan before = plan.layers[m];
      plan.layers[m] = placed;
      const std::size_t after = next_run(n);
      const l1_range after_next = prefetch_block(n, after);
      tried.operand = forwardable_operand(g, plan, roots, m, n);
      tried.placed = plan.layers[n];
      tried.l1_end = l1_end;
      tried.valid = tried.operand >= 0 && place_forwarded(tried.placed, g.nodes[n].geometry, tried.operand, placed,
                                                          g.nodes[m].geometry, after_next, capacity, tried.l1_end);
      plan.layers[m] = before;
      bool follows = tried.valid && !input_slot(tried.placed).meets(after_next);
      if (tried.valid && !follows)
        follows = prefetched_bytes(g, roots, plan.layers[after], after, n) <=
                  saved_bytes(tried.placed, g.nodes[n].geometry, tried.operand, static_cast<std::size_t>(g.nodes[m].outputs[0]));
      if (!follows && prefetched_bytes(g, roots, plan.layers[n], n, m) > saved) {
        tried = {};  // tried on a plan where m reads its input in L1, which it does not
        continue;
      }
    }
    plan.layers[m] = placed;
    plan.l1_bytes = l1_end;
    plan.layers[p].output_forwarded = true;
    plan.layers[p].output_unstored = unstored_if_forwarded(t);
  }
}

}  // namespace tessera::planning_detail
