// The flat executor's arena within a RAM budget the user states: per layer, the faster kernel
// variant where it fits the budget, the one with fewer bytes at its step elsewhere; and outputs
// written over their inputs where the kernel allows it (issue 15, "RAM as a budget").
//
// A node may offer two whole-layer variants (node_summary::scratch and ::lean_scratch: today a
// depthwise layer whose family prefers the CHW kernel, which copies the map into int16 planes,
// and the HWC kernel, which needs a few hundred bytes) and its own variant may write in place
// (node_summary::in_place: arm_dsp and arm_mve 1x1 convolutions and CHW depthwise kernels,
// x86's CHW depthwise kernel; the lean variant never does). The default budget, `least_ram`,
// takes per layer the variant whose step needs fewer bytes (its scratch, plus its output where
// the own variant would have written in place): "no larger than the activations plus the
// minimum scratch". A larger budget lets each layer take its own, faster variant where the live
// bytes at its step with that scratch stay within it; `any_ram` takes every own variant.
//
// The choice per layer is independent of the others (a node's scratch lives only at its own
// step), so it is made from the per-step live totals of the least plan, each rounded to the
// arena's alignment as the packing rounds them: O(buffer-steps), then one more arena plan. If
// packing the chosen buffers were to exceed the budget (the live total is a lower bound, not a
// plan), the least plan is kept. Cost: at most two arena plans instead of one.
#pragma once

#include <array>
#include <cstddef>
#include <limits>

#include <tessera/graph/network.hpp>
#include <tessera/planning/arena_buffers.hpp>
#include <tessera/planning/arena_plan.hpp>

namespace tessera {

/// The least arena the network needs: every layer's least-scratch variant, outputs in place
/// where the kernels allow (the default of tessera::executor).
inline constexpr std::size_t least_ram = 0;
/// No budget: every layer's faster variant (outputs still in place where the kernels allow).
inline constexpr std::size_t any_ram = std::numeric_limits<std::size_t>::max();

/// The arena plan of `g` for kernels of `family` run by kernels of `runs_with` (the family
/// itself where the build can run it, else the reference: in-place outputs follow the kernels
/// that actually run), within `budget` bytes of arena when that is at least the least arena
/// (least_ram: the least arena; any_ram: the fastest variants).
template <std::size_t NT, std::size_t NI, std::size_t NO, std::size_t NN>
constexpr arena_plan<NT, NN> plan_within_ram(const graph_summary<NT, NI, NO, NN>& g, kernels::kernel_family family,
                                             kernels::kernel_family runs_with, std::size_t budget = least_ram) {
  using planning_detail::align_up;
  const auto f = static_cast<std::size_t>(family);
  layer_choices<NN> choices{};
  choices.in_place = true;
  choices.runs_with = runs_with;
  bool choice = false;  // some node has a variant with less scratch
  for (std::size_t n = 0; n < NN; ++n) choice = choice || g.nodes[n].lean_scratch[f] < g.nodes[n].scratch[f];
  if (!choice || budget == any_ram) return plan_arena(g, {}, true, family, arena_search_budget, choices);

  // A node's own variant may write in place (its output then costs no bytes of its own at its
  // step); the lean one never does. The least plan takes the lean variant where the step's
  // bytes are then fewer: its scratch, plus the output when the own variant would be in place.
  const auto outside = planning_detail::outside_arena(g);
  const auto roots = planning_detail::alias_roots(g, outside, choices);
  std::array<std::size_t, NN> saved_output{};  // aligned output bytes an in-place own variant saves
  for (std::size_t n = 0; n < NN; ++n) {
    const node_summary& node = g.nodes[n];
    if (node.is_alias || node.output_count != 1 || node.input_count < 1) continue;
    const auto in = static_cast<std::size_t>(node.inputs[0]), out = static_cast<std::size_t>(node.outputs[0]);
    if (!outside[out] && roots[out] == roots[in]) saved_output[n] = align_up(g.tensors[out].bytes(), arena_alignment);
  }
  for (std::size_t n = 0; n < NN; ++n)
    choices.lean[n] = align_up(g.nodes[n].lean_scratch[f], arena_alignment) + saved_output[n] <
                      align_up(g.nodes[n].scratch[f], arena_alignment);
  const arena_plan<NT, NN> least = plan_arena(g, {}, true, family, arena_search_budget, choices);
  const std::size_t limit = budget > least.arena_bytes ? budget : least.arena_bytes;

  // Live bytes per step of the least plan's buffers, rounded as the packing rounds them; a lean
  // node takes its own variant where its step then stays within the limit (the output it may
  // then write in place is not counted off: a bound, checked by planning the result).
  const std::array<std::size_t, NN> live =
      planning_detail::live_per_step(planning_detail::collect_buffers(g, {}, true, family, choices), arena_alignment);
  bool faster = false;
  for (std::size_t n = 0; n < NN; ++n) {
    if (!choices.lean[n]) continue;
    const std::size_t lean = align_up(g.nodes[n].lean_scratch[f], arena_alignment);
    const std::size_t full = align_up(g.nodes[n].scratch[f], arena_alignment);
    if (live[n] - lean + full <= limit) {
      choices.lean[n] = false;
      faster = true;
    }
  }
  if (!faster) return least;
  const arena_plan<NT, NN> chosen = plan_arena(g, {}, true, family, arena_search_budget, choices);
  return chosen.arena_bytes <= limit ? chosen : least;
}

}  // namespace tessera
