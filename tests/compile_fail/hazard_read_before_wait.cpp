// expect-error: schedule_hazard<[^,]*"conv"}, 1, [^,]*"L1 input slot 1"}, tessera::schedule::hazard::read_before_wait, 7>
// Tile 1 of conv computes before waiting for its input load: the checker names the layer,
// the tile, the buffer and the hazard.
#include "../support/hazard_programs.hpp"

namespace hazard_test {
static_assert(expect_safe<read_before_wait>);
}  // namespace hazard_test
