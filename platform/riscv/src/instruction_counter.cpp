// minstret as a 64-bit guest-instruction counter (../include/tessera_qemu/instruction_counter.hpp).
#include <tessera_qemu/instruction_counter.hpp>

namespace {

bool started = false;
std::uint64_t origin = 0;

}  // namespace

namespace tessera::qemu {

/// minstreth, minstret, minstreth again: retried when the high half moved in between, so the
/// two halves belong to the same value.
std::uint64_t instret() {
  std::uint32_t high, low, again;
  do {
    asm volatile("csrr %0, minstreth" : "=r"(high));
    asm volatile("csrr %0, minstret" : "=r"(low));
    asm volatile("csrr %0, minstreth" : "=r"(again));
  } while (high != again);
  return (std::uint64_t{high} << 32) | low;
}

void start_instruction_counter() {
  started = true;
  origin = instret();
}

std::uint64_t guest_instructions() { return started ? instret() - origin : 0; }

}  // namespace tessera::qemu
