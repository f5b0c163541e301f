// Target code as firmware builds it: the flat and the tiled executor of a network, compiled for
// a Cortex-M core without exceptions and RTTI. The test (CMakeLists.txt) compiles this file
// with arm-none-eabi-g++ and checks that the object file references no heap or exception
// machinery.
#include <tessera/dma/memcpy_policy.hpp>
#include <tessera/tessera.hpp>

#include "../support/tiny_networks.hpp"

using network = tiny::features::network;
using flat = tessera::executor<network>;
using tiled = tessera::tiled_executor<network, tessera::target<tessera::targets::stm32h7>>;

alignas(16) static std::byte arena[flat::arena_bytes];
alignas(16) static std::byte l2[tiled::l2_bytes];
alignas(16) static std::byte l1[tiled::l1_bytes];

extern "C" void infer(const std::uint8_t* image, std::int32_t* logits) { flat::run(arena, {image}, {logits}); }

extern "C" void infer_tiled(const std::uint8_t* image, std::int32_t* logits) {
  tessera::dma::memcpy_policy dma;
  tiled::run(l2, l1, {image}, {logits}, dma);
}
