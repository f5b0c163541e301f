// The timed events a DMA policy can record: transfers on an engine, compute and stalls on a core.
//
// The simulated policy records them when asked (simulated_policy::record_trace); the plan
// pictures (report/svg/trace_timeline.hpp) turn them into a timeline. Times are the
// simulator's, in cycles, so the events add up to its counters exactly:
//   sum of transfer durations = dma_busy_cycles, of compute durations = compute_cycles,
//   of stall durations = stall_cycles.
//
// `engine` says which unit ran the event among the units of its kind (DMA engine for transfers,
// core for compute and stalls). Today the simulator has one of each, so it is always 0; a
// simulator with several DMA channels or cluster cores labels events with it, and the pictures
// already draw one lane per (kind of unit, engine).
#pragma once

#include <cstddef>
#include <cstdint>

#include <tessera/dma/transfer.hpp>

namespace tessera::dma {

enum class event_kind : std::uint8_t {
  transfer,  ///< a DMA engine copies `bytes` bytes between `outer_level` and the level inside it
  compute,   ///< a core computes `macs` multiply-accumulates
  stall,     ///< a core waits for transfer `id` to complete
};

constexpr const char* name_of(event_kind k) {
  constexpr const char* names[] = {"transfer", "compute", "stall"};
  return names[static_cast<std::size_t>(k)];
}

/// One timed event, [begin, end) in cycles.
struct trace_event {
  event_kind kind = event_kind::compute;
  int engine = 0;           ///< DMA engine (transfers) or core (compute, stalls) that ran it; 0 today
  std::uint64_t begin = 0;  ///< first cycle
  std::uint64_t end = 0;    ///< one past the last cycle (== begin: took no time)
  handle id = -1;           ///< transfer: its handle; stall: the transfer waited on; compute: -1
  int outer_level = 0;      ///< transfer and stall: the transfer's outer level (1 = L2, 2 = L3)
  bool inbound = false;     ///< transfer and stall: the transfer is a load (outer -> inner)
  std::size_t bytes = 0;    ///< transfer and stall: the transfer's bytes
  std::byte* dst = nullptr;        ///< transfer: destination of row 0 of plane 0
  const std::byte* src = nullptr;  ///< transfer: source of row 0 of plane 0
  std::uint64_t macs = 0;   ///< compute: multiply-accumulates
  int tag = -1;             ///< the caller's tag when the event was recorded (e.g. a layer index)
  int compute_engine = 0;   ///< transfer and stall: whose memory its inner side is (0 the CPU's, k accelerator k's)

  constexpr std::uint64_t cycles() const { return end - begin; }
};

}  // namespace tessera::dma
