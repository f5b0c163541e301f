// expect-error: schedule_hazard<[^,]*"conv"}, 0, [^,]*"L1 output slot 0"}, tessera::schedule::hazard::store_before_compute, 5>
// conv's first store is issued before the tile that fills its slot computed.
#include "../support/hazard_programs.hpp"

namespace hazard_test {
static_assert(expect_safe<store_before_compute>);
}  // namespace hazard_test
