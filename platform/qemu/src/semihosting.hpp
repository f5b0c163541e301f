// Direct Arm semihosting calls (BKPT 0xAB on M-profile) for the few places that cannot go
// through newlib: fault handlers, where the C library's state may be what broke.
#pragma once

#include <cstdint>

namespace tessera::qemu::semihosting {

enum class op : std::uint32_t {
  write0 = 0x04,         ///< r1: NUL-terminated string to the debug console
  exit_extended = 0x20,  ///< r1: {reason, exit code}; QEMU exits with that code
};

inline std::uint32_t call(op operation, const void* argument) {
  register std::uint32_t r0 asm("r0") = static_cast<std::uint32_t>(operation);
  register const void* r1 asm("r1") = argument;
  asm volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

inline void write(const char* text) { call(op::write0, text); }

/// Ends the emulation with `code` as QEMU's exit status (ADP_Stopped_ApplicationExit).
[[noreturn]] inline void exit(std::uint32_t code) {
  const std::uint32_t block[2] = {0x20026u, code};
  call(op::exit_extended, block);
  for (;;) {
  }
}

}  // namespace tessera::qemu::semihosting
