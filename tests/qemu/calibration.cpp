// Calibration of the guest-instruction counter (tessera_qemu/instruction_counter.hpp): runs loops
// of a known instruction count and checks what the counter reports.
//
// 1. `subs; bne` loops of n iterations execute exactly 2n instructions. The SysTick ticks they
//    take give the instructions per tick (the slope between two lengths, free of the reading's
//    own cost), which must be the board's 1e9 / systick_hz (40 on mps2-an386/an500, 31.25 on
//    mps3-an547), and guest_instructions() must be within 1% of 2n.
// 2. Across two wraps of the 24-bit counter (every 2^24 ticks: 500-700 M instructions, 2-3 s
//    of QEMU), once with interrupts enabled (the SysTick handler counts the wrap) and once with
//    them masked (the wrap stays pending): consecutive readings never go back and never jump
//    by more than a few hundred instructions, and a known loop is still counted within 1%.
#include <cstdint>
#include <cstdio>

#include <tessera_qemu/board.hpp>
#include <tessera_qemu/instruction_counter.hpp>

namespace {

using tessera::qemu::guest_instructions;
using tessera::qemu::systick_ticks;

/// Exactly 2n instructions (n >= 1).
[[gnu::noinline]] void spin(std::uint32_t n) {
  asm volatile(
      "1:\n\t"
      "subs %0, %0, #1\n\t"
      "bne 1b"
      : "+r"(n)
      :
      : "cc");
}

int failures = 0;

void expect(bool ok, const char* what) {
  if (!ok) {
    std::printf("FAILED: %s\n", what);
    ++failures;
  }
}

/// Whether `measured` is within 1% of `known`.
bool within_one_percent(std::uint64_t measured, std::uint64_t known) {
  const std::uint64_t diff = measured > known ? measured - known : known - measured;
  return diff * 100 <= known;
}

struct measurement {
  std::uint64_t ticks;
  std::uint64_t instructions;
};

measurement measure_spin(std::uint32_t n) {
  const std::uint64_t t0 = systick_ticks();
  const std::uint64_t i0 = guest_instructions();
  spin(n);
  const std::uint64_t t1 = systick_ticks();
  const std::uint64_t i1 = guest_instructions();
  return {t1 - t0, i1 - i0};
}

void check_loops() {
  constexpr std::uint32_t lengths[] = {1u << 14, 1u << 16, 1u << 20, 1u << 23};
  for (const std::uint32_t n : lengths) {
    const measurement m = measure_spin(n);
    std::printf("spin %8lu iterations: %9llu instructions known, %9llu counted, %8llu ticks\n",
                static_cast<unsigned long>(n), 2ull * n, static_cast<unsigned long long>(m.instructions),
                static_cast<unsigned long long>(m.ticks));
    expect(within_one_percent(m.instructions, 2ull * n), "guest_instructions() within 1% of a known loop");
  }
  // Instructions per tick from the slope between two lengths (the readings' cost cancels).
  const measurement a = measure_spin(1u << 20);
  const measurement b = measure_spin(1u << 23);
  const double known = 2.0 * ((1u << 23) - (1u << 20));
  const double per_tick = known / static_cast<double>(b.ticks - a.ticks);
  const double expected = 1e9 / tessera::qemu::board.systick_hz;
  std::printf("%s: %.4f instructions per SysTick tick measured, %.4f expected (1e9 / %lu Hz)\n",
              tessera::qemu::board.name, per_tick, expected, static_cast<unsigned long>(tessera::qemu::board.systick_hz));
  expect(per_tick > expected * 0.999 && per_tick < expected * 1.001, "instructions per tick match the board");
}

/// Reads the counter `count` times; fails on a reading that goes back or jumps (a lost or
/// doubled wrap is a jump of 2^24 ticks).
void read_continuously(int count, const char* what) {
  std::uint64_t previous = guest_instructions();
  std::uint64_t largest_step = 0;
  bool backwards = false;
  for (int i = 0; i < count; ++i) {
    const std::uint64_t current = guest_instructions();
    if (current < previous) backwards = true;
    else if (current - previous > largest_step) largest_step = current - previous;
    previous = current;
  }
  std::printf("%d readings %s: largest step %llu instructions\n", count, what,
              static_cast<unsigned long long>(largest_step));
  expect(!backwards, "the count never goes back");
  expect(largest_step < 1000, "no jump between consecutive readings");
}

/// Spins until the next wrap of the 24-bit counter is less than `margin` ticks away; returns
/// its tick (counted from start_instruction_counter(), which ran a few ticks after SysTick's).
std::uint64_t approach_wrap(std::uint64_t margin) {
  constexpr std::uint64_t period = 1ull << 24;
  const std::uint64_t wrap = (systick_ticks() / period + 1) * period;
  while (systick_ticks() + margin < wrap) spin(1u << 16);
  return wrap;
}

void check_wrap() {
  // 1. Interrupts enabled: the SysTick handler counts the wrap.
  std::uint64_t wrap = approach_wrap(50'000);
  read_continuously(100'000, "across a wrap");  // at least one tick each
  expect(systick_ticks() > wrap, "the readings crossed a wrap");

  // 2. Interrupts masked (a measured region may mask them for less than a period): the wrap
  //    stays pending and the counter must account for it, in readings and in a known loop.
  wrap = approach_wrap(50'000);
  asm volatile("cpsid i" ::: "memory");
  read_continuously(100'000, "across a wrap, interrupts masked");
  const bool crossed = systick_ticks() > wrap;
  const measurement m = measure_spin(1u << 20);
  asm volatile("cpsie i" ::: "memory");
  expect(crossed, "the readings crossed a wrap");
  std::printf("spin after a pending wrap: %llu instructions known, %llu counted\n", 2ull << 20,
              static_cast<unsigned long long>(m.instructions));
  expect(within_one_percent(m.instructions, 2ull << 20), "a loop after a pending wrap is counted within 1%");
}

}  // namespace

int main() {
  tessera::qemu::start_instruction_counter();
  check_loops();
  check_wrap();
  std::printf("calibration on %s: %s\n", tessera::qemu::board.name, failures == 0 ? "ok" : "FAILED");
  return failures;
}
