// expect-error: schedule_hazard<[^,]*"dw"}, 0, [^,]*"tensor conv"}, tessera::schedule::hazard::read_unproduced, 7>
// The depthwise layer's first load is issued while conv's first store, which writes rows that
// load reads, is still in flight. (Issued after conv's tile 0 was stored it would be legal:
// the checker knows which of conv's tiles the load's box needs.)
#include "../support/hazard_programs.hpp"

namespace hazard_test {
static_assert(expect_safe<read_unproduced>);
}  // namespace hazard_test
