// expect-error: schedule_hazard<[^,]*"conv"}, 1, [^,]*"L1 input slot 1"}, tessera::schedule::hazard::stale_read, 7>
// conv's tile 1 is never loaded: its compute would read what the slot held before.
#include "../support/hazard_programs.hpp"

namespace hazard_test {
static_assert(expect_safe<stale_read>);
}  // namespace hazard_test
