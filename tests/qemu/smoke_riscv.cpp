// Smoke test of the RISC-V QEMU platform (platform/riscv): the entry code ran (.data loaded,
// .bss zeroed, static constructors called, thread pointer set for picolibc's errno), M
// extension multiplies and divides, on rv32gcv the FPU and the vector unit execute (mstatus.FS
// and .VS set by the entry code), semihosting printf works, and main()'s 0 is QEMU's exit status.
#include <cerrno>
#include <cstdint>
#include <cstdio>

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

volatile std::int32_t m_a = -123457, m_b = 97;
[[gnu::noinline]] std::int32_t mul_div() { return m_a * m_b / 7 % 1000; }  // mul, div, rem

#if defined(__riscv_flen)
volatile float two = 2.0f;
[[gnu::noinline]] float scale(float x) { return x * 1.5f; }
#endif

#if defined(__riscv_vector)
/// Sum of 16 int32 lanes with RVV 1.0 (strip-mined: vsetvli picks the lanes per step, 4 at VLEN
/// 128). Written in assembly: GCC 12 has no RVV intrinsics. Illegal unless mstatus.VS is on.
[[gnu::noinline]] std::int32_t vector_sum(const std::int32_t* p, unsigned n) {
  std::int32_t sum;
  asm volatile(
      "vsetvli t0, zero, e32, m1, ta, ma\n\t"
      "vmv.v.i v8, 0\n\t"
      "1:\n\t"
      "vsetvli t0, %[n], e32, m1, tu, ma\n\t"
      "vle32.v v16, (%[p])\n\t"
      "vadd.vv v8, v8, v16\n\t"
      "sub %[n], %[n], t0\n\t"
      "slli t0, t0, 2\n\t"
      "add %[p], %[p], t0\n\t"
      "bnez %[n], 1b\n\t"
      "vsetvli t0, zero, e32, m1, ta, ma\n\t"
      "vmv.s.x v16, zero\n\t"
      "vredsum.vs v16, v8, v16\n\t"
      "vmv.x.s %[sum], v16"
      : [sum] "=r"(sum), [p] "+r"(p), [n] "+r"(n)
      :
      : "t0", "memory");  // GCC 12 knows no vector registers: it never allocates them either
  return sum;
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
  check(initialized == 42, ".data loaded");
  check(zeroed == 0, ".bss zeroed");
  check(global.value == 7, "static constructors ran");
  check(mul_div() == -123457 * 97 / 7 % 1000, "M extension");
  errno = 0;
  errno = EDOM;  // thread-local in picolibc: faults unless tp points at the TLS block
  check(errno == EDOM, "errno (thread-local storage)");
#if defined(__riscv_flen)
  check(scale(two) == 3.0f, "FPU enabled (mstatus.FS)");
#endif
#if defined(__riscv_vector)
  std::int32_t values[16];
  std::int32_t expected = 0;
  for (int i = 0; i < 16; ++i) expected += values[i] = i * 1000 - 7000;
  check(vector_sum(values, 16) == expected, "vector unit enabled (mstatus.VS), RVV 1.0");
#endif
  std::printf("tessera_qemu smoke test on %s (%s): %s\n", tessera::qemu::board.name, tessera::qemu::board.core,
              failures == 0 ? "ok" : "FAILED");
  return failures;
}
