// Host runs of the randomized equivalence checks: the reference against itself (which checks
// the harness) and the x86 family, built once for SSE4.1 and once for AVX2 (CMakeLists.txt).
#include <catch2/catch.hpp>

#include "equivalence.hpp"

using tessera::kernels::kernel_family;

TEST_CASE("reference family: the harness runs every kernel kind", "[kernels]") {
  CHECK(tessera::testing::run_all_equivalence_checks<kernel_family::reference>(1u, 40) == 0);
}

TEST_CASE("x86 family: bit-exact with the reference on randomized shapes", "[kernels][x86]") {
  static_assert(tessera::kernels::family_available(kernel_family::x86), "built without SSE4.1");
  CHECK(tessera::testing::run_all_equivalence_checks<kernel_family::x86>(12345u, 300) == 0);
}
