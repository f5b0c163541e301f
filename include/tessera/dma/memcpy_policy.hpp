// The synchronous DMA policy: every transfer is a memcpy done inside start().
//
// The default on hardware without a DMA engine (and the fastest choice on the host). Because a
// transfer is complete when start() returns, wait() and the hazard declarations have nothing to
// do; they exist so the executor's pipeline calls one interface whatever the policy, and compile
// away here (the policy is an empty class: no state, no heap, no exceptions).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <tessera/dma/transfer.hpp>

namespace tessera {
// Declared, not included: target code needs no target description to copy bytes, and keeping
// target.hpp out keeps this header free of everything but <cstring>.
struct target_desc;
}  // namespace tessera

namespace tessera::dma {

struct memcpy_policy {
  constexpr memcpy_policy() = default;
  /// Same constructor as every policy, so the executor builds any of them from its target.
  constexpr explicit memcpy_policy(const target_desc& /*desc*/) {}

  /// Copies `t` now (one std::memcpy per contiguous run). Always returns handle 0.
  handle start(const transfer& t) {
    if (t.bytes() == 0) return 0;  // memcpy on null pointers is undefined even for 0 bytes
    const auto row = static_cast<std::ptrdiff_t>(t.row_bytes);
    if (t.src_row_stride == row && t.dst_row_stride == row) {
      // Dense planes are one run each: the common case of whole-row tiles and 1D copies.
      const std::size_t plane_bytes = t.row_bytes * t.rows;
      for (std::size_t p = 0; p < t.planes; ++p) {
        const auto pp = static_cast<std::ptrdiff_t>(p);
        std::memcpy(t.dst + pp * t.dst_plane_stride, t.src + pp * t.src_plane_stride, plane_bytes);
      }
      return 0;
    }
    for_each_row(t, [&](std::byte* d, const std::byte* s) { std::memcpy(d, s, t.row_bytes); });
    return 0;
  }

  /// Nothing to wait for: start() already copied.
  constexpr void wait(handle /*h*/) const {}
  /// The kernel is about to read `bytes` bytes at `p` (checked by the simulator only).
  constexpr void declare_read(const void* /*p*/, std::size_t /*bytes*/) const {}
  /// The kernel is about to write `bytes` bytes at `p` (checked by the simulator only).
  constexpr void declare_write(const void* /*p*/, std::size_t /*bytes*/) const {}
  /// The kernel performs `macs` multiply-accumulates (timed by the simulator only).
  constexpr void compute(std::uint64_t /*macs*/) const {}
  /// End of a run: nothing is ever in flight.
  constexpr void finish() const {}
};

}  // namespace tessera::dma
