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

#include <algorithm>
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

  // Greedy by size: the largest buffer first (ties: the one born first, then the lower index),
  // each at the lowest aligned offset where no placed buffer live at the same time collides.
  // One sort, then per buffer one sweep over the placed buffers in offset order: a gap below
  // the next placed buffer either holds it or the offset moves past that buffer. O(B^2) for B
  // buffers, where bumping until nothing collides was O(B^3) (8 s and 1 GB of compiler memory
  // for a 256-operator graph).
  std::array<std::size_t, NT + NN> order{};
  std::size_t count = 0;
  for (std::size_t b = 0; b < NT + NN; ++b)
    if (buffers[b].used) order[count++] = b;
  std::sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(count), [&](std::size_t x, std::size_t y) {
    if (buffers[x].bytes != buffers[y].bytes) return buffers[x].bytes > buffers[y].bytes;
    if (buffers[x].first != buffers[y].first) return buffers[x].first < buffers[y].first;
    return x < y;
  });
  std::array<std::size_t, NT + NN> by_offset{};  // placed buffers, sorted by offset
  std::size_t placed = 0;
  std::size_t arena = 0;
  for (std::size_t k = 0; k < count; ++k) {
    buffer& cur = buffers[order[k]];
    std::size_t offset = 0;
    for (std::size_t i = 0; i < placed; ++i) {
      const buffer& other = buffers[by_offset[i]];
      if (other.first > cur.last || cur.first > other.last) continue;  // never live together
      if (other.offset >= offset + cur.bytes) break;                    // the gap below it fits
      if (other.offset + other.bytes > offset) offset = planning_detail::align_up(other.offset + other.bytes, arena_alignment);
    }
    cur.offset = offset;
    cur.placed = true;
    std::size_t at = placed++;
    while (at > 0 && buffers[by_offset[at - 1]].offset > offset) {
      by_offset[at] = by_offset[at - 1];
      --at;
    }
    by_offset[at] = order[k];
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
