// expect-error: does_not_fit<[^,]*"conv_a"}, [^,]*"L1"}, 96, 64>
// A target whose L1 cannot hold even the smallest tile of conv_a: one diagnostic naming the
// layer, the level, the bytes needed (3x3 input halo + one output + the filters, doubled) and
// the bytes available.
#include <tessera/tessera.hpp>

#include "../support/tiny_networks.hpp"

inline constexpr tessera::target_desc tiny_l1{
    .name = "tiny", .levels = {{{"L1", 64, 8, 1, 1}, {"L2", 4096, 8, 1, 1}}}, .level_count = 2};
using run = tessera::tiled_executor<tiny::residual::network, tessera::target<tiny_l1>>;
constexpr auto bytes = run::l1_bytes;
