// SysTick as a 64-bit guest-instruction counter (../include/tessera_qemu/instruction_counter.hpp).
#include <tessera_qemu/board.hpp>
#include <tessera_qemu/instruction_counter.hpp>

namespace {

struct systick_registers {
  std::uint32_t csr;    ///< control and status: ENABLE (bit 0), TICKINT (1), CLKSOURCE (2)
  std::uint32_t rvr;    ///< reload value
  std::uint32_t cvr;    ///< current value (counts down)
  std::uint32_t calib;
};

volatile systick_registers& systick() { return *reinterpret_cast<volatile systick_registers*>(0xE000E010u); }
volatile std::uint32_t& icsr() { return *reinterpret_cast<volatile std::uint32_t*>(0xE000ED04u); }

constexpr std::uint32_t reload = 0x00FF'FFFFu;
constexpr std::uint64_t period = std::uint64_t{reload} + 1;  // ticks between two wraps
constexpr std::uint32_t pendstset = 1u << 26;                 // ICSR: SysTick exception pending

volatile std::uint32_t wraps = 0;
bool started = false;
std::uint64_t origin = 0;

/// Ticks since SysTick first loaded the reload value.
///
/// The counter runs reload, reload - 1, ..., 1, 0, reload, ...; reaching 0 pends the SysTick
/// exception, whose handler counts the wrap (QEMU sets the pending bit in the same tick as the
/// 0: checked by tests/qemu/calibration.cpp). After `w` such events, the count is
/// w * period + (reload - value), one period less while the value is still 0. CVR, the pending
/// bit and `wraps` are read with interrupts masked; a wrap that is pending but not yet handled
/// is counted here, and CVR is read again so that it belongs to the same side of that wrap.
std::uint64_t ticks_since_enable() {
  std::uint32_t primask;
  asm volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
  std::uint32_t value = systick().cvr;
  std::uint64_t events = wraps;
  if (icsr() & pendstset) {
    value = systick().cvr;
    ++events;
  }
  asm volatile("msr primask, %0" ::"r"(primask) : "memory");
  const std::uint64_t full_periods = value == 0 ? events - 1 : events;
  return full_periods * period + (reload - value);
}

}  // namespace

extern "C" void SysTick_Handler() { wraps = wraps + 1; }

namespace tessera::qemu {

void start_instruction_counter() {
  if (!started) {
    started = true;
    systick().csr = 0;
    systick().rvr = reload;
    systick().cvr = 0;  // any write clears it: the first tick loads the reload value
    systick().csr = 0b111;
    // Until its first tick the counter reads 0 (not a wrap): wait for the reload value.
    while (systick().cvr == 0) {
    }
  }
  origin = ticks_since_enable();
}

std::uint64_t systick_ticks() { return started ? ticks_since_enable() - origin : 0; }

std::uint64_t guest_instructions() { return systick_ticks() * quarter_instructions_per_tick / 4; }

}  // namespace tessera::qemu
