// A property of L1 forwarding (planning/l1_forwarding.hpp) that every tiled corpus case checks
// on its presets: keeping a result in L1 never takes the overlap of a layer's loads with the
// compute of the layer before, unless what that layer loads then (its first filters, and its
// first inputs when it does not read that layer's result: prefetched_bytes) is at most what the
// forwarding saved (the load, and the store when nothing else reads the result). Compared
// between the plan before forwarding (tiled_executor::memory_plan) and after (::plan).
#pragma once

#include <cstddef>

#include <tessera/planning/l1_forwarding.hpp>

namespace tessera::testing {

template <class Run>
constexpr bool forwarding_keeps_prefetch() {
  constexpr auto& g = Run::summary;
  const auto& before = Run::memory_plan;
  const auto& after = Run::plan;
  constexpr std::size_t count = g.nodes.size();
  const auto roots = planning_detail::roots_of(g, after);
  // The layers in the order they run (schedule/emit.hpp): fused-away nodes and aliases that
  // run nothing have no steps.
  const auto skipped = [&](std::size_t n) { return planning_detail::has_no_steps(g, after, n); };
  for (std::size_t m = 0; m < count; ++m) {
    const auto& forwarded = after.layers[m];
    if (forwarded.forwarded_operand < 0) continue;
    std::size_t n = m + 1;
    while (n < count && skipped(n)) ++n;
    if (n >= count || !before.layers[n].tiled || before.layers[n].engine != 0) continue;
    const bool could = planning_detail::apart(before.layers[m], g.nodes[m].geometry, before.layers[n], g.nodes[n].geometry);
    const bool can = planning_detail::apart(forwarded, g.nodes[m].geometry, after.layers[n], g.nodes[n].geometry);
    if (!could || can) continue;
    std::size_t p = m - 1;
    while (skipped(p)) --p;
    const std::size_t saved = planning_detail::forwarded_bytes(forwarded, g.nodes[m].geometry, forwarded.forwarded_operand) *
                              (after.layers[p].output_unstored ? 2 : 1);
    if (planning_detail::prefetched_bytes(g, roots, after.layers[n], n, m) > saved) return false;
  }
  return true;
}

}  // namespace tessera::testing
