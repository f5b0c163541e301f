// DORY's bidirectional stack (DORY section 4.4): each layer's output is pushed on the end of
// the arena opposite to its input, and a buffer is popped only when it is dead *and* on top of
// its stack. Residual branches leave dead buffers under live ones (fragmentation), but on
// chains with a big buffer in the middle the two ends pack tighter than greedy by size does.
// It is one of the arena planner's candidates (arena_plan.hpp), so Tessera's plan is never
// above it, and the benchmarks report it as the baseline.
#pragma once

#include <array>
#include <cstddef>

#include <tessera/graph/network.hpp>
#include <tessera/planning/arena_buffers.hpp>

namespace tessera {

/// Places the buffers of `a` (read off `g` by collect_buffers) as DORY's bidirectional stack
/// does and returns its peak; every used buffer gets its `offset`. Node n's scratch sits just
/// above the bottom stack while n runs (DORY pushes and pops it within the layer). The bottom
/// stack grows up from 0, the top stack down from the peak, so the top's offsets are known
/// once the peak is: a first pass records each buffer's depth in its stack, the second turns
/// depths into offsets. O(nodes x outputs + buffers).
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr std::size_t bidirectional_stack_place(const graph_summary<NT, NI, NO, NN>& g,
                                                planning_detail::arena_buffers<NT, NN>& a) {
  using planning_detail::align_up;
  auto& buf = a.buffers;
  // Two stacks of buffer ids; `side[t]` is 1 (bottom) or 2 (top) once pushed (0: not yet:
  // zero-initialized on purpose, see planning_detail::buffer).
  std::array<std::array<std::size_t, NT>, 2> stack{};
  std::array<std::size_t, 2> depth{};
  std::array<std::size_t, 2> used{};
  std::array<int, NT> side{};
  std::size_t peak = 0;
  for (std::size_t n = 0; n < NN; ++n) {
    const node_summary& node = g.nodes[n];
    for (int o = 0; o < node.output_count; ++o) {
      const auto t = static_cast<std::size_t>(node.outputs[static_cast<std::size_t>(o)]);
      if (a.outside[t] || a.root[t] != t) continue;  // caller buffer, or an alias of a pushed buffer
      // Opposite to the first arena input, so that producer and consumer never collide.
      std::size_t s = 0;
      for (int i = 0; i < node.input_count; ++i) {
        const auto in = a.root[static_cast<std::size_t>(node.inputs[static_cast<std::size_t>(i)])];
        if (side[in] != 0) {
          s = side[in] == 1 ? 1 : 0;
          break;
        }
      }
      side[t] = static_cast<int>(s) + 1;
      stack[s][depth[s]++] = t;
      buf[t].offset = used[s];  // depth in its stack for now
      used[s] += align_up(buf[t].bytes, arena_alignment);
    }
    const std::size_t scratch = buf[NT + n].used ? align_up(buf[NT + n].bytes, arena_alignment) : 0;
    buf[NT + n].offset = used[0];
    if (used[0] + used[1] + scratch > peak) peak = used[0] + used[1] + scratch;
    // Pop dead buffers from the tops (a dead buffer under a live one stays: fragmentation).
    for (std::size_t s = 0; s < 2; ++s) {
      while (depth[s] > 0) {
        const std::size_t t = stack[s][depth[s] - 1];
        if (buf[t].last > static_cast<int>(n)) break;
        used[s] -= align_up(buf[t].bytes, arena_alignment);
        --depth[s];
      }
    }
  }
  for (std::size_t t = 0; t < NT; ++t)
    if (side[t] == 2) buf[t].offset = peak - buf[t].offset - align_up(buf[t].bytes, arena_alignment);
  return peak;
}

/// Peak bytes of the bidirectional stack for the arena of `g` (the buffers, alias groups,
/// 16-byte alignment and kernel scratch of `plan_arena` for `family`).
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr std::size_t bidirectional_stack_peak(const graph_summary<NT, NI, NO, NN>& g,
                                               kernels::kernel_family family = kernels::native_family) {
  auto a = planning_detail::collect_buffers(g, {}, true, family);
  return bidirectional_stack_place(g, a);
}

}  // namespace tessera
