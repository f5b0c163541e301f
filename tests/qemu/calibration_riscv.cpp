// Calibration of the RISC-V guest-instruction counter (tessera_qemu/instruction_counter.hpp,
// minstret under -icount shift=0): `addi; bnez` loops of n iterations execute exactly 2n
// instructions, and the counter must report 2n plus the constant cost of a reading, the same for
// every n (the difference between two lengths is exact to the instruction); counts are the same
// on two runs of the same loop; consecutive readings never go back.
#include <cstdint>
#include <cstdio>

#include <tessera_qemu/board.hpp>
#include <tessera_qemu/instruction_counter.hpp>

namespace {

using tessera::qemu::guest_instructions;

/// Exactly 2n instructions (n >= 1).
[[gnu::noinline]] void spin(std::uint32_t n) {
  asm volatile(
      "1:\n\t"
      "addi %0, %0, -1\n\t"
      "bnez %0, 1b"
      : "+r"(n));
}

std::uint64_t measure(std::uint32_t n) {
  const std::uint64_t a = guest_instructions();
  spin(n);
  return guest_instructions() - a;
}

}  // namespace

int main() {
  int failures = 0;
  tessera::qemu::start_instruction_counter();
  const std::uint64_t overhead = measure(1) - 2;
  std::printf("reading overhead: %llu instructions\n", static_cast<unsigned long long>(overhead));
  constexpr std::uint32_t lengths[] = {1u << 4, 1u << 10, 1u << 14, 1u << 20, 1u << 23};
  for (const std::uint32_t n : lengths) {
    const std::uint64_t first = measure(n), second = measure(n);
    std::printf("spin %8lu iterations: %9llu instructions known, %9llu counted (%llu again)\n",
                static_cast<unsigned long>(n), 2ull * n, static_cast<unsigned long long>(first - overhead),
                static_cast<unsigned long long>(second - overhead));
    if (first - overhead != 2ull * n || second != first) {
      std::printf("FAILED: the counter is not exact\n");
      ++failures;
    }
  }
  // Consecutive 64-bit readings (minstreth, minstret, minstreth) never go back.
  std::uint64_t previous = tessera::qemu::instret();
  for (int i = 0; i < 1000; ++i) {
    const std::uint64_t now = tessera::qemu::instret();
    if (now <= previous) ++failures;
    previous = now;
  }
  std::printf("calibration on %s (%s): %s\n", tessera::qemu::board.name, tessera::qemu::board.core,
              failures == 0 ? "ok" : "FAILED");
  return failures;
}
