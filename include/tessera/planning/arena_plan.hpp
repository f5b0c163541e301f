// Static memory plan of the activation arena: an offset for every intermediate tensor and
// every node's kernel scratch, computed from lifetimes at compile time.
//
// Graph inputs and outputs live in caller buffers and are not planned. Reshape-like nodes
// whose input and output are both arena tensors share one buffer (an alias group). Every
// other buffer lives from the node that writes it to the last node that reads it; a node's
// inputs and outputs are live at the same step, so they never overlap (no in-place kernels).
//
// Placement is greedy by size (largest first, lowest offset that does not collide with a
// placed buffer of overlapping lifetime), the heuristic TFLite Micro uses. It is compared in
// the benchmarks against the lower bound: the largest total of simultaneously live bytes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include <tessera/graph/network.hpp>

namespace tessera {

inline constexpr std::size_t arena_alignment = 16;

template <std::size_t NT, std::size_t NN>
struct arena_plan {
  static constexpr std::int64_t caller_buffer = -1;
  std::array<std::int64_t, NT> tensor_offset{};   ///< byte offset in the arena, or caller_buffer
  std::array<std::int64_t, NN> scratch_offset{};  ///< offset of node n's scratch (0 if none)
  std::size_t arena_bytes = 0;                     ///< bytes the caller must provide
  std::size_t lower_bound_bytes = 0;               ///< max over steps of live bytes
  int peak_step = 0;                                ///< node index where the live bytes peak
};

namespace planning_detail {

constexpr std::size_t align_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

// Every member defaults to zero on purpose. GCC 12 drops non-zero default member initializers
// of the elements of a value-initialized std::array when the same constexpr function is
// evaluated a second time with the same template arguments (two networks of equal sizes in
// one translation unit): an `offset = -1` default silently became 0 and the arena came out
// empty. tests/static/test_plan.cpp ("twin networks") guards it.
struct buffer {
  std::size_t bytes = 0;
  int first = 0;  ///< first step it is live (node index)
  int last = 0;   ///< last step it is live
  bool used = false;
  bool placed = false;
  std::size_t offset = 0;
};

constexpr void touch(buffer& buf, std::size_t bytes, int step) {
  if (!buf.used) {
    buf.used = true;
    buf.first = step;
    buf.last = step;
  }
  if (bytes > buf.bytes) buf.bytes = bytes;
  if (step < buf.first) buf.first = step;
  if (step > buf.last) buf.last = step;
}

/// Tensors outside the arena: graph inputs and outputs (caller buffers) plus `elsewhere`.
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr std::array<bool, NT> outside_arena(const graph_summary<NT, NI, NO, NN>& g,
                                             const std::array<bool, NT>& elsewhere = {}) {
  std::array<bool, NT> outside = elsewhere;
  for (tensor_id t : g.inputs) outside[static_cast<std::size_t>(t)] = true;
  for (tensor_id t : g.outputs) outside[static_cast<std::size_t>(t)] = true;
  return outside;
}

/// Alias groups: each tensor points at the tensor whose buffer it uses. A Reshape-like node's
/// output shares its input's buffer when both are arena tensors.
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr std::array<std::size_t, NT> alias_roots(const graph_summary<NT, NI, NO, NN>& g,
                                                  const std::array<bool, NT>& outside) {
  std::array<std::size_t, NT> root{};
  for (std::size_t t = 0; t < NT; ++t) root[t] = t;
  for (const node_summary& n : g.nodes) {
    if (!n.is_alias) continue;
    const auto in = static_cast<std::size_t>(n.inputs[0]);
    const auto out = static_cast<std::size_t>(n.outputs[0]);
    if (!outside[in] && !outside[out]) root[out] = root[in];  // inputs precede outputs: root[in] is final
  }
  return root;
}

}  // namespace planning_detail

/// Plans the arena of `g`. Tensors marked in `elsewhere` (another memory level) are left out
/// like caller buffers; `with_scratch` adds every node's kernel scratch (the L2 arena has it,
/// an L3 arena of spilled activations does not), as the kernels of `family` need it.
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr arena_plan<NT, NN> plan_arena(const graph_summary<NT, NI, NO, NN>& g,
                                        const std::array<bool, NT>& elsewhere = {}, bool with_scratch = true,
                                        kernels::kernel_family family = kernels::native_family) {
  using planning_detail::buffer;
  arena_plan<NT, NN> plan{};

  const std::array<bool, NT> caller = planning_detail::outside_arena(g, elsewhere);
  const std::array<std::size_t, NT> root = planning_detail::alias_roots(g, caller);

  // Buffers 0..NT-1 are tensor groups (indexed by root), NT..NT+NN-1 are node scratch.
  std::array<buffer, NT + NN> buffers{};
  for (std::size_t n = 0; n < NN; ++n) {
    const node_summary& node = g.nodes[n];
    const int step = static_cast<int>(n);
    for (int i = 0; i < node.input_count + node.output_count; ++i) {
      const auto t = static_cast<std::size_t>(i < node.input_count ? node.inputs[static_cast<std::size_t>(i)]
                                                                  : node.outputs[static_cast<std::size_t>(i - node.input_count)]);
      if (caller[t]) continue;
      planning_detail::touch(buffers[root[t]], g.tensors[t].bytes(), step);
    }
    const std::size_t scratch = node.scratch[static_cast<std::size_t>(family)];
    if (with_scratch && scratch > 0) planning_detail::touch(buffers[NT + n], scratch, step);
  }

  // Lower bound: the largest sum of live bytes at any step.
  for (std::size_t s = 0; s < NN; ++s) {
    std::size_t live = 0;
    for (const buffer& b : buffers)
      if (b.used && b.first <= static_cast<int>(s) && static_cast<int>(s) <= b.last) live += b.bytes;
    if (live > plan.lower_bound_bytes) {
      plan.lower_bound_bytes = live;
      plan.peak_step = static_cast<int>(s);
    }
  }

  // Greedy by size: place the largest unplaced buffer at the lowest offset that fits.
  std::size_t arena = 0;
  for (std::size_t round = 0; round < NT + NN; ++round) {
    std::size_t pick = NT + NN;
    for (std::size_t b = 0; b < NT + NN; ++b) {
      const buffer& c = buffers[b];
      if (!c.used || c.placed) continue;
      if (pick == NT + NN || c.bytes > buffers[pick].bytes ||
          (c.bytes == buffers[pick].bytes && c.first < buffers[pick].first))
        pick = b;
    }
    if (pick == NT + NN) break;
    buffer& cur = buffers[pick];
    std::size_t offset = 0;
    for (bool moved = true; moved;) {  // bump past every colliding placed buffer until none collides
      moved = false;
      for (const buffer& other : buffers) {
        if (!other.used || !other.placed) continue;
        const bool live_together = other.first <= cur.last && cur.first <= other.last;
        const auto o_begin = static_cast<std::size_t>(other.offset);
        const bool overlap = offset < o_begin + other.bytes && o_begin < offset + cur.bytes;
        if (live_together && overlap) {
          offset = planning_detail::align_up(o_begin + other.bytes, arena_alignment);
          moved = true;
        }
      }
    }
    cur.offset = offset;
    cur.placed = true;
    if (offset + cur.bytes > arena) arena = offset + cur.bytes;
  }
  plan.arena_bytes = planning_detail::align_up(arena, arena_alignment);

  for (std::size_t t = 0; t < NT; ++t)
    plan.tensor_offset[t] =
        caller[t] ? arena_plan<NT, NN>::caller_buffer : static_cast<std::int64_t>(buffers[root[t]].offset);
  for (std::size_t n = 0; n < NN; ++n)
    plan.scratch_offset[n] = buffers[NT + n].used ? static_cast<std::int64_t>(buffers[NT + n].offset) : 0;
  return plan;
}

/// The arena plan of a network type.
template <class Net>
inline constexpr auto arena_plan_of = plan_arena(Net::summary);

}  // namespace tessera
