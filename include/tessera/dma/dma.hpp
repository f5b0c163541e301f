// Umbrella header of the DMA policies: the transfer description, the synchronous memcpy policy
// (target code) and the simulated policy (host tests: traffic, time model, hazard detector).
//
// Every policy has the same members, which is all the executor's tile pipeline uses:
//   handle start(const transfer&);   void wait(handle);
//   void declare_read(const void*, std::size_t bytes);   void declare_write(const void*, std::size_t bytes);
//   void compute(std::uint64_t macs);   void finish();
#pragma once

#include <tessera/dma/memcpy_policy.hpp>
#include <tessera/dma/policy.hpp>
#include <tessera/dma/simulated_policy.hpp>
#include <tessera/dma/transfer.hpp>
