// expect-error: schedule_hazard<.*"conv.*, 1, .*"L1 input.*hazard::stale_read
// conv's tile 1 is never loaded: its compute would read what the slot held before.
#include "../support/hazard_programs.hpp"

namespace hazard_test {
static_assert(expect_safe<stale_read>);
}  // namespace hazard_test
