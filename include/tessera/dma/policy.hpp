// What a DMA policy provides to the executor that replays a schedule: start a transfer, wait for
// it, declare the buffers a compute step reads and writes (for policies that check hazards),
// account a compute step, and finish. `memcpy_policy` (target code), `simulated_policy` (host
// tests: traffic, time model, hazard detector) and the cluster's policies model this concept;
// a policy may also offer `compute_cycles(cycles, macs)` (a time model: the executor then passes
// the target's cost model) and `set_trace_tag(int)` (the step index, for traces).
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>

#include <tessera/dma/transfer.hpp>

namespace tessera::dma {

template <class P>
concept policy = requires(P& p, const transfer& t, const void* buffer, std::size_t bytes, std::uint64_t macs) {
  { p.start(t) } -> std::convertible_to<handle>;
  p.wait(handle{});
  p.declare_read(buffer, bytes);
  p.declare_write(buffer, bytes);
  p.compute(macs);
  p.finish();
};

}  // namespace tessera::dma
