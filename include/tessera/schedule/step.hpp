// The schedule as data: a step program is an array of steps that the executor replays and
// the compile-time hazard checker walks.
//
// A step is small (16 bytes) because firmware stores the program: it names what happens
// (issue a transfer, wait for one, compute a tile) and the layer, tile and buffer slot it
// concerns. Everything else a transfer needs (memory levels, buffers and offsets, the 1-3D
// box, bytes) follows from the plan and is computed by `describe()` (schedule/transfers.hpp),
// the same constexpr function at compile time (checker, tests, reports) and at run time.
//
// Engines: computes carry the engine that executes them (0 the CPU, whose cores share the
// tile, k accelerator k of the target, planning/dispatch.hpp). A transfer runs on the DMA engine
// of its outer memory level (memory_level::dma_engine: gap8 moves L3 <-> L2 on an engine of its
// own), which follows from its role; its `engine` field stays 0, where several channels for one
// level would plug in.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessera::schedule {

enum class step_kind : std::uint8_t {
  issue,    ///< start a transfer (role, layer, tile, operand, slot) on a DMA engine; handle = its queue entry
  wait,     ///< block until the transfer in queue entry `handle` completes
  compute,  ///< run tile `tile` of `layer` on L1 buffers (tile < 0: the whole layer on its L2 buffers)
  done,     ///< every output of `layer` is complete in its memory (observers may read it)
};

/// What a transfer moves. With the layer, the tile and the slot it determines the transfer.
enum class transfer_role : std::uint8_t {
  input,          ///< operand `operand` of tile `tile`: its tensor (or L2 spill slot) -> L1 input slot
  filters,        ///< the filters of tile `tile`'s channel block: flash/L2 (or L2 staging) -> L1
  output,         ///< tile `tile`'s result: L1 output slot -> its tensor (or the L2 spill slot)
  stage_filters,  ///< filter chunk `tile` of the layer: L3 -> L2 staging slot `slot`
  spill_input,    ///< operand `operand` of tile `tile`: L3 tensor -> L2 spill input slot
  spill_output,   ///< tile `tile`'s result: L2 spill output slot -> L3 tensor
  /// A fused block (planning/fusion.hpp): its first layer's filters for tile `tile`'s channel
  /// block (producer_filter_bytes), flash/L2 (or the front of the L2 staging slot) -> the front
  /// of the block's L1 filter slot, beside its filters.
  producer_filters,
  /// A fused block on a three-level target: its first layer's filters for filter chunk `tile`,
  /// L3 -> the front of the L2 staging slot `slot`, beside the chunk.
  stage_producer_filters,
};
inline constexpr int transfer_role_count = 8;

constexpr const char* name_of(transfer_role r) {
  constexpr const char* names[transfer_role_count] = {"input",         "filters",     "output",          "stage_filters",
                                                      "spill_input",   "spill_output", "producer_filters",
                                                      "stage_producer_filters"};
  return names[static_cast<int>(r)];
}

/// How much more work one constant evaluation may do under GCC than under clang: GCC bounds an
/// evaluation by operations (2^25 by default), clang by steps (2^20), and the same work fits
/// about eight times over under GCC. The walks over a long program (emission, the hazard
/// proof) split it into chunks sized for clang, times this factor.
#if defined(__clang__)
inline constexpr std::size_t constexpr_budget_factor = 1;
#else
inline constexpr std::size_t constexpr_budget_factor = 8;
#endif

struct step {
  step_kind kind = step_kind::compute;
  transfer_role role = transfer_role::input;
  std::uint8_t engine = 0;   ///< compute engine (compute: 0 the CPU, k accelerator k); 0 for transfers (see above)
  std::uint8_t operand = 0;  ///< input operand (input, spill_input); compute: the filter slot
  std::uint8_t slot = 0;     ///< buffer slot the transfer fills or drains, or the compute's activation slot
  /// compute: the CPU ran this layer's previous tile, with the same filter block, just before on
  /// the same scratch and nothing has written that scratch since (the hazard check proves it),
  /// so what a kernel derived there from the filters, bias and requantization (arm_dsp's
  /// widened weights and requantization table) may be kept instead of derived again.
  std::uint8_t prepared = 0;
  std::uint16_t layer = 0;
  std::int32_t tile = 0;    ///< tile index in the layer's tile order (stage_filters: chunk index)
  std::int32_t handle = 0;  ///< DMA queue entry (issue, wait)

  friend constexpr bool operator==(const step&, const step&) = default;
};

constexpr step issue(transfer_role role, int layer, std::int64_t tile, int slot, int handle, int operand = 0,
                     int engine = 0) {
  return {step_kind::issue,
          role,
          static_cast<std::uint8_t>(engine),
          static_cast<std::uint8_t>(operand),
          static_cast<std::uint8_t>(slot),
          0,
          static_cast<std::uint16_t>(layer),
          static_cast<std::int32_t>(tile),
          handle};
}
constexpr step wait_for(const step& issued) {
  step s = issued;
  s.kind = step_kind::wait;
  return s;
}
constexpr step compute(int layer, std::int64_t tile, int slot = 0, int filter_slot = 0, int engine = 0) {
  step s{};
  s.kind = step_kind::compute;
  s.engine = static_cast<std::uint8_t>(engine);
  s.slot = static_cast<std::uint8_t>(slot);
  s.operand = static_cast<std::uint8_t>(filter_slot);
  s.layer = static_cast<std::uint16_t>(layer);
  s.tile = static_cast<std::int32_t>(tile);
  return s;
}
constexpr step layer_done(int layer) {
  step s{};
  s.kind = step_kind::done;
  s.layer = static_cast<std::uint16_t>(layer);
  return s;
}

}  // namespace tessera::schedule
