// expect-error: schedule_hazard<[^,]*"conv"}, 2, [^,]*"L1 output slot 0"}, tessera::schedule::hazard::write_in_flight, 13>
// Tile 2 of conv writes its output slot while the store of tile 0 from that slot is still in
// flight (the wait before the slot's reuse is gone).
#include "../support/hazard_programs.hpp"

namespace hazard_test {
static_assert(expect_safe<write_in_flight>);
}  // namespace hazard_test
