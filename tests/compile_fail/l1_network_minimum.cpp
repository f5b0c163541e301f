// expect-error: network_needs_at_least<[^,]*"L1"}, 160, [^,]*"fc"}, 64>
// The same target as l1_does_not_fit: besides the first failing layer (conv_a, 96 bytes), the
// build names the L1 the whole network needs (160 bytes, for the fully connected layer that
// comes later), so one failed build tells the user the size to ask for.
#include <tessera/tessera.hpp>

#include "../support/tiny_networks.hpp"

inline constexpr tessera::target_desc tiny_l1{
    .name = "tiny", .levels = {{{"L1", 64, 8, 1, 1}, {"L2", 4096, 8, 1, 1}}}, .level_count = 2};
using run = tessera::tiled_executor<tiny::residual::network, tessera::target<tiny_l1>>;
constexpr auto bytes = run::l1_bytes;
