// Firmware whose outcome is its exit status, checked by expect_exit_status.cmake: that a
// failing firmware fails its ctest (QEMU exits with main()'s return value) and that a fault ends
// QEMU with 128 + exception number instead of hanging.
#include <cstdio>

int main() {
#if defined(TESSERA_QEMU_TEST_FAULT)
  std::printf("executing an undefined instruction\n");
#if defined(__riscv)
  asm volatile("unimp");  // illegal instruction (mcause 2): exit status 130
#else
  asm volatile("udf #0");  // UsageFault, escalated to HardFault (3): exit status 131
#endif
  std::printf("still running after the fault\n");
  return 0;
#else
  std::printf("returning 7 from main\n");
  return 7;
#endif
}
