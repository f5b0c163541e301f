// DORY's bidirectional stack (DORY section 4.4), kept as a baseline for the arena planner's
// reports: each layer's output is pushed on the end of L2 opposite to its input, and a
// buffer is popped only when it is dead *and* on top of its stack. Residual branches leave
// dead buffers under live ones, which is the fragmentation the greedy planner avoids.
#pragma once

#include <array>
#include <cstddef>

#include <tessera/graph/network.hpp>
#include <tessera/planning/arena_plan.hpp>

namespace tessera {

/// Peak bytes of the bidirectional stack for the arena tensors of `g` (same buffers, alias
/// groups and 16-byte alignment as `plan_arena`; kernel scratch excluded on both sides of
/// the comparison is not needed: scratch is pushed and popped within its layer).
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr std::size_t bidirectional_stack_peak(const graph_summary<NT, NI, NO, NN>& g) {
  using planning_detail::align_up;
  const std::array<bool, NT> caller = planning_detail::outside_arena(g);
  const std::array<std::size_t, NT> root = planning_detail::alias_roots(g, caller);

  // Last step each tensor is read (alias groups extend their root's life).
  std::array<int, NT> last_use{};
  for (std::size_t n = 0; n < NN; ++n) {
    const node_summary& node = g.nodes[n];
    for (int i = 0; i < node.input_count; ++i) {
      const auto t = root[static_cast<std::size_t>(node.inputs[static_cast<std::size_t>(i)])];
      if (static_cast<int>(n) > last_use[t]) last_use[t] = static_cast<int>(n);
    }
  }

  // Two stacks of tensor ids; `side[t]` is 0 (bottom) or 1 (top) once pushed.
  std::array<std::array<std::size_t, NT>, 2> stack{};
  std::array<std::size_t, 2> depth{};
  std::array<std::size_t, 2> used{};
  std::array<int, NT> side{};
  for (auto& s : side) s = -1;
  std::size_t peak = 0;
  for (std::size_t n = 0; n < NN; ++n) {
    const node_summary& node = g.nodes[n];
    for (int o = 0; o < node.output_count; ++o) {
      const auto t = static_cast<std::size_t>(node.outputs[static_cast<std::size_t>(o)]);
      if (caller[t] || root[t] != t) continue;  // caller buffer, or an alias of a pushed buffer
      // Opposite to the first arena input, so that producer and consumer never collide.
      int s = 0;
      for (int i = 0; i < node.input_count; ++i) {
        const auto in = root[static_cast<std::size_t>(node.inputs[static_cast<std::size_t>(i)])];
        if (side[in] >= 0) {
          s = 1 - side[in];
          break;
        }
      }
      side[t] = s;
      stack[static_cast<std::size_t>(s)][depth[static_cast<std::size_t>(s)]++] = t;
      used[static_cast<std::size_t>(s)] += align_up(g.tensors[t].bytes(), arena_alignment);
    }
    const std::size_t scratch = align_up(node.scratch[static_cast<std::size_t>(kernels::native_family)], arena_alignment);
    if (used[0] + used[1] + scratch > peak) peak = used[0] + used[1] + scratch;
    // Pop dead buffers from the tops (a dead buffer under a live one stays: fragmentation).
    for (std::size_t s = 0; s < 2; ++s) {
      while (depth[s] > 0) {
        const std::size_t t = stack[s][depth[s] - 1];
        if (last_use[t] > static_cast<int>(n)) break;
        used[s] -= align_up(g.tensors[t].bytes(), arena_alignment);
        --depth[s];
      }
    }
  }
  return peak;
}

}  // namespace tessera
