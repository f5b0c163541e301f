// One level of a target's memory hierarchy, as the planner and the DMA simulator see it.
#pragma once

#include <cstddef>
#include <cstdint>

#include <tessera/core/fixed_name.hpp>

namespace tessera {

struct memory_level {
  fixed_name name;
  std::size_t bytes = 0;  ///< capacity the plan may use
  // Cost of a DMA transfer between this level and the next-inner one, i.e. of moving data
  // out of or into this level (simulator only; L3's figures are the external RAM's):
  // cycles = setup_cycles + latency_cycles + ceil(bytes / bytes_per_cycle), per transfer.
  std::uint32_t bytes_per_cycle = 8;
  std::uint32_t latency_cycles = 0;
  std::uint32_t setup_cycles = 0;
  /// The DMA engine that moves data between this level and the next-inner one. Transfers on
  /// one engine run in issue order; transfers on different engines run at the same time (GAP8:
  /// the micro-DMA moves L3 <-> L2 while the cluster DMA moves L2 <-> L1). The hazard proof does
  /// not depend on it (every transfer is in flight until its wait); the planner streams an
  /// L3-bound layer's filters block by block when L3 has an engine of its own (target_plan.hpp).
  std::uint8_t dma_engine = 0;

  /// The one cost formula of a transfer, for the simulator and the tile solver alike: an empty
  /// transfer moves nothing and costs nothing; a level described with 0 B/cycle is read as
  /// 1 B/cycle rather than divided by.
  constexpr std::uint64_t transfer_cycles(std::uint64_t n) const {
    if (n == 0) return 0;
    const std::uint64_t rate = bytes_per_cycle != 0 ? bytes_per_cycle : 1;
    return setup_cycles + latency_cycles + (n + rate - 1) / rate;
  }
};

}  // namespace tessera
