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

  constexpr std::uint64_t transfer_cycles(std::uint64_t n) const {
    return setup_cycles + latency_cycles + (n + bytes_per_cycle - 1) / bytes_per_cycle;
  }
};

}  // namespace tessera
