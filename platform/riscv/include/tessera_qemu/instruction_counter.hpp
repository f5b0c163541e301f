// A deterministic guest-instruction counter for firmware under QEMU (riscv32 `virt`).
//
// Same interface as the Cortex-M platform's (platform/qemu). QEMU runs the firmware with
// `-icount shift=0`; the counter reads the `minstret`/`minstreth` CSRs, which QEMU 7.2 derives
// from that instruction count (tests/qemu/calibration_riscv.cpp checks a loop of known length
// to the instruction). With several harts the count is the machine's: every hart's instructions
// advance it, so a region measured on one hart counts the others' too unless they sleep (the
// cluster's per-hart profile runs one hart at a time, tessera_qemu/harts.hpp). QEMU counts
// instructions, not cycles.
#pragma once

#include <cstdint>

namespace tessera::qemu {

/// Makes "now" the origin of guest_instructions() (the CSR always counts: nothing to start).
void start_instruction_counter();

/// Guest instructions executed since the last start_instruction_counter() (0 before the first).
std::uint64_t guest_instructions();

/// The raw 64-bit minstret value (for calibration).
std::uint64_t instret();

}  // namespace tessera::qemu
