// expect-error: schedule_hazard<[^,]*"conv"}, 0, [^,]*"L1 input slot 0"}, tessera::schedule::hazard::overlapping_buffers, 5>
// A plan whose conv output slots were laid over its input slots: the emitted program is
// correct step by step, but tile 0 reads and writes the same L1 bytes.
#include "../support/hazard_programs.hpp"

namespace hazard_test {
static_assert(expect_safe<program, overlapping_plan>);
}  // namespace hazard_test
