// expect-error: schedule_hazard<[^,]*"conv"}, 2, [^,]*"L1 input slot 0"}, tessera::schedule::hazard::refill_in_flight, 2>
// The load of conv's tile 2 is issued before tile 0's load into the same slot was waited for.
#include "../support/hazard_programs.hpp"

namespace hazard_test {
static_assert(expect_safe<refill_in_flight>);
}  // namespace hazard_test
