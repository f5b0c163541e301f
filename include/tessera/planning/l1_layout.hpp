// One layer's L1 layout: where its input, output and filter slots and its scratch lie, and
// where each operand starts in its input slot. The planner lays layers out (target_plan.hpp,
// place_for_prefetch, l1_forwarding.hpp); the step program, the hazard proof and the executor
// read the offsets.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include <tessera/planning/tile_geometry.hpp>
#include <tessera/planning/tile_solver.hpp>
#include <tessera/target/target.hpp>

namespace tessera {

struct layer_l1_plan {
  bool tiled = false;  ///< false: runs on its L2 buffers (see tiling_kind::in_place)
  // L1 forwarding (l1_forwarding.hpp), in what would be padding before `engine` (a firmware
  // keeps its plans' layers): the input operand read where the previous layer computed it
  // (-1: none); this layer's output is read so by the next; it is not stored at all.
  std::int8_t forwarded_operand = -1;
  bool output_forwarded = false;
  bool output_unstored = false;
  /// The engine that computes it (planning/dispatch.hpp): 0 the CPU, whose tiles live in L1;
  /// k an accelerator, whose tiles live in its activation memory and its filters in its weight
  /// memory. Offsets below are in the local space either way (see local_base).
  int engine = 0;
  tile_solution solution{};
  std::size_t base = 0;                  ///< L1 offset of the layer's first buffer (see place_for_prefetch)
  std::array<std::size_t, 2> input{};    ///< L1 offsets of the input tile buffers (ping, pong)
  std::array<std::size_t, 2> output{};   ///< ... of the output tile buffers
  std::array<std::size_t, 2> weights{};  ///< ... of the filter tile buffers
  std::size_t scratch = 0;
  std::size_t bytes = 0;  ///< L1 bytes the layer uses, from `base`
  /// Three-level targets: filters live in L3 and reach L1 through L2 in chunks of this many
  /// output channels (a multiple of the L1 tile's channels, or all of them); 0 = not staged.
  int stage_channels = 0;
  int stage_chunks = 0;
};

/// The local memories as one space of offsets, so that schedule endpoints (schedule::space::l1),
/// the hazard proof and the executor's address map treat them alike: the CPU's L1 from 0,
/// then each accelerator's activation memory and weight memory, each at a 16-byte aligned base
/// past the previous one's capacity. The executor maps each range to its memory's own address.
constexpr std::size_t local_base(const target_desc& t, int engine, bool weights) {
  if (engine == 0) return 0;
  std::size_t at = l1_aligned(t.levels[0].bytes);
  for (int e = 1; e < engine; ++e)
    at += l1_aligned(t.accelerator(e).activations.bytes) + l1_aligned(t.accelerator(e).weights.bytes);
  return weights ? at + l1_aligned(t.accelerator(engine).activations.bytes) : at;
}

/// Where operand `k`'s tile starts in an input slot (operands sit back to back; a whole
/// operand after the first operand's largest tile, L1-aligned as cost_of counts it).
constexpr std::size_t operand_offset(const layer_l1_plan& l, const tile_geometry& g, int k) {
  if (k == 0) return 0;
  if (g.whole_operand_bytes > 0) return l.solution.cost.input_bytes - g.whole_operand_bytes;
  return static_cast<std::size_t>(k) * (l.solution.cost.input_bytes / static_cast<std::size_t>(g.in_operands));
}

namespace planning_detail {

/// Lays out one layer's L1 buffers: inputs, outputs, filters (each twice when doubled), scratch.
/// On an accelerator (engine > 0) the filters go to its weight memory and everything is placed
/// at its memories' bases in the local space.
constexpr layer_l1_plan lay_out_l1(const tile_solution& s, const target_desc* t = nullptr, int engine = 0) {
  layer_l1_plan l{};
  l.tiled = true;
  l.solution = s;
  l.engine = engine;
  std::size_t at = engine > 0 ? local_base(*t, engine, false) : 0;
  l.base = at;
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
  if (engine > 0) {  // the weight memory
    const std::size_t activations_end = at;
    at = local_base(*t, engine, true);
    place(l.weights, s.cost.constant_bytes, s.cost.constants_doubled);
    at = activations_end;
  } else {
    place(l.weights, s.cost.constant_bytes, s.cost.constants_doubled);
  }
  l.scratch = at;
  at += tiling_detail::aligned(s.cost.scratch_bytes);
  l.bytes = at - l.base;
  return l;
}

/// Whether two layers' L1 blocks are disjoint, so that one can load while the other computes.
constexpr bool l1_disjoint(const layer_l1_plan& a, const layer_l1_plan& b) {
  return a.base + a.bytes <= b.base || b.base + b.bytes <= a.base;
}

}  // namespace planning_detail

}  // namespace tessera
