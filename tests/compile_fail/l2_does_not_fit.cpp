// expect-error: does_not_fit<[^,]*"add"}, [^,]*"L2"}, 220, 200>
// The activation arena (192 bytes, peaking at the residual add) plus the caller's input (16)
// and output (12) buffers, 220 bytes in all, exceed a 200-byte L2.
#include <tessera/tessera.hpp>

#include "../support/tiny_networks.hpp"

inline constexpr tessera::target_desc small_l2{
    .name = "small-l2", .levels = {{{"L1", 4096, 8, 1, 1}, {"L2", 200, 8, 1, 1}}}, .level_count = 2};
using run = tessera::tiled_executor<tiny::residual::network, tessera::target<small_l2>>;
constexpr auto bytes = run::l2_bytes;
