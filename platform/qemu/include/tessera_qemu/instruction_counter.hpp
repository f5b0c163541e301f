// A deterministic guest-instruction counter for firmware under QEMU.
//
// QEMU runs the firmware with `-icount shift=0`: every guest instruction advances virtual time by
// exactly 1 ns, and SysTick (clocked from the board's system clock) ticks once per
// 1e9 / systick_hz instructions: 40 on mps2-an386 and mps2-an500 (25 MHz), 31.25 on mps3-an547
// (32 MHz); tests/qemu/calibration.cpp measures it. QEMU counts instructions, not cycles: the
// figure says nothing about pipeline stalls, wait states or caches.
//
// Resolution is one tick (31-40 instructions); the reading itself costs a few dozen
// instructions, so measure regions of at least some thousands of instructions, or subtract an
// empty measurement.
#pragma once

#include <cstdint>

namespace tessera::qemu {

/// Starts SysTick on the first call (reload 0xFFFFFF, processor clock, interrupt on wrap so the
/// count extends past 24 bits), and makes "now" the origin of guest_instructions(). Later calls
/// only move the origin. The SysTick handler (src/instruction_counter.cpp) counts the wraps;
/// a region may mask interrupts for less than one wrap period (2^24 ticks, > 500 M
/// instructions): the pending wrap is accounted for.
void start_instruction_counter();

/// Guest instructions executed since the last start_instruction_counter() (0 before the first).
std::uint64_t guest_instructions();

/// SysTick ticks since the last start_instruction_counter(): guest_instructions() before the
/// conversion, for calibration.
std::uint64_t systick_ticks();

}  // namespace tessera::qemu
