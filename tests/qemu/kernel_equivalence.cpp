// The randomized bit-exactness checks of tests/kernels/equivalence.hpp on the core itself: the
// family the compiler targets (arm_dsp on Cortex-M4/M7, arm_mve on Cortex-M55) against the
// scalar reference, and on the M55 also the DSP family, which Armv8.1-M keeps; rv32 on RISC-V.
//
// The exit status is the number of failures (capped at 127; 128 + n means a fault): a family
// that runs no case of a kernel kind counts as a failure, so a placeholder family fails here.
#include <cstdio>

#include <tessera_qemu/board.hpp>

#include "../kernels/equivalence.hpp"

#ifndef TESSERA_EQUIVALENCE_ITERATIONS
#define TESSERA_EQUIVALENCE_ITERATIONS 300
#endif

int main() {
  using tessera::kernels::kernel_family;
  constexpr std::uint32_t seed = 20240611u;
  constexpr int iterations = TESSERA_EQUIVALENCE_ITERATIONS;
  constexpr kernel_family native = tessera::kernels::native_family;
  std::printf("kernel equivalence on %s: %s family, seed %lu, %d iterations per kind\n", tessera::qemu::board.name,
              tessera::kernels::family_name(native), static_cast<unsigned long>(seed), iterations);

  int failures = tessera::testing::run_all_equivalence_checks<native>(seed, iterations);
  if constexpr (native != kernel_family::arm_dsp && tessera::kernels::family_available(kernel_family::arm_dsp)) {
    failures += tessera::testing::run_all_equivalence_checks<kernel_family::arm_dsp>(seed + 100, iterations);
  }
  std::printf("kernel equivalence: %d failures\n", failures);
  return failures > 127 ? 127 : failures;
}
