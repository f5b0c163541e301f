// expect-error: does_not_fit<[^,]*"conv"}, [^,]*"AXI-SRAM"}, 11534736, 524288>
// forbid-error: exceeds limit|constexpr-ops-limit|maximum step limit|constexpr-steps
// A real-sized layer: a 3x3 convolution (3 -> 8 channels) on a 1024 x 1024 RGB image on the
// stm32h7 preset. Its activations (3 MiB in, 8 MiB out) cannot fit the 512 KiB AXI-SRAM, and the
// build must say so with the usual diagnostic at the compilers' default constexpr limits (GCC
// 2^25 operations, clang 2^20 steps). Once, GCC failed with "constexpr evaluation operation count
// exceeds limit" and no word about memory (the tile solver then walked every column pair; now it
// walks runs of equal tile heights, tile_solver.hpp (5)); clang needed 4-8 M steps for this
// layer's tile search before the work budget (tests/planning/test_real_size_plans.cpp). On a
// two-level target such as this one L2 holds the arena and the caller's buffers whatever the
// tiles, so when the bytes live at one step already exceed it the planner reports L2 before
// solving any tile (planning_detail::l2_fails_untiled).
#include <tessera/tessera.hpp>

#include "../support/real_size_network.hpp"

using run = tessera::tiled_executor<big::network, tessera::target<tessera::targets::stm32h7>>;
constexpr auto bytes = run::l2_bytes;
