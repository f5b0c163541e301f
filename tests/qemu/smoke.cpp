// Smoke test of the QEMU platform (platform/qemu): the reset handler ran (.data copied, .bss
// zeroed, static constructors called, FPU enabled), the core's SIMD extension executes (DSP on
// every board, Helium/MVE on the M55), semihosting printf works, and main()'s 0 is QEMU's exit
// status.
#include <cstdint>
#include <cstdio>

#include <arm_acle.h>
#if defined(TESSERA_QEMU_BOARD_MPS3_AN547)
#include <arm_mve.h>
static_assert(__ARM_FEATURE_MVE & 1, "the cortex-m55 toolchain must enable integer MVE");
#endif
static_assert(__ARM_FEATURE_DSP, "every QEMU board's core has the DSP extension");

#include <tessera_qemu/board.hpp>

namespace {

int initialized = 42;  // .data
int zeroed;            // .bss
struct constructed {
  int value;
  constructed() : value(7) {}
  ~constructed() { value = 0; }  // registered with __cxa_atexit: links only with __dso_handle
};
constructed global;  // static constructor, run by __libc_init_array

// Hard float: faults (NOCP UsageFault) unless the reset handler enabled the FPU.
volatile float two = 2.0f;
[[gnu::noinline]] float scale(float x) { return x * 1.5f; }

// SMLAD: two 16x16 products added to an accumulator.
volatile std::int32_t dsp_a = (3 << 16) | 2, dsp_b = (5 << 16) | 7;
[[gnu::noinline]] std::int32_t dual_mac() { return __smlad(dsp_a, dsp_b, 100); }  // 3*5 + 2*7 + 100

#if defined(TESSERA_QEMU_BOARD_MPS3_AN547)
// VMLADAV on 16 int8 lanes: faults unless the reset handler also enabled MVE (CPACR CP10/CP11).
[[gnu::noinline]] std::int32_t mve_dot(const std::int8_t* a, const std::int8_t* b) {
  return vmladavq_s8(vld1q_s8(a), vld1q_s8(b));
}
#endif

}  // namespace

int main() {
  int failures = 0;
  auto check = [&](bool ok, const char* what) {
    if (!ok) {
      std::printf("FAILED: %s\n", what);
      ++failures;
    }
  };
  check(initialized == 42, ".data copied");
  check(zeroed == 0, ".bss zeroed");
  check(global.value == 7, "static constructors ran");
  check(scale(two) == 3.0f, "FPU enabled");
  check(dual_mac() == 129, "DSP extension (SMLAD)");
#if defined(TESSERA_QEMU_BOARD_MPS3_AN547)
  std::int8_t a[16], b[16];
  std::int32_t expected = 0;
  for (int i = 0; i < 16; ++i) {
    a[i] = static_cast<std::int8_t>(i * 9 - 70);
    b[i] = static_cast<std::int8_t>(50 - i * 7);
    expected += a[i] * b[i];
  }
  check(mve_dot(a, b) == expected, "Helium (VMLADAV)");
#endif
  std::printf("tessera_qemu smoke test on %s (%s): %s\n", tessera::qemu::board.name, tessera::qemu::board.core,
              failures == 0 ? "ok" : "FAILED");
  return failures;
}
