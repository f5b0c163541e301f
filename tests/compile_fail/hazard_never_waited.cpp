// expect-error: schedule_hazard<[^,]*"fc"}, 5, [^,]*"tensor logits"}, tessera::schedule::hazard::incomplete_layer, 105>
// The classifier's last store is never waited for: the layer is declared done (observers
// would read its output) while the store is in flight.
#include "../support/hazard_programs.hpp"

namespace hazard_test {
static_assert(expect_safe<never_waited>);
}  // namespace hazard_test
