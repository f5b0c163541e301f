// RISC-V semihosting calls for the few places that cannot go through picolibc: the trap report,
// where the C library's state may be what broke.
//
// The call is the three-instruction sequence of the RISC-V semihosting spec (slli x0, x0, 0x1f;
// ebreak; srai x0, x0, 7), uncompressed and not split across a page: a0 = operation, a1 = argument.
#pragma once

#include <cstdint>

namespace tessera::qemu::semihosting {

enum class op : std::uintptr_t {
  write0 = 0x04,         ///< a1: NUL-terminated string to the debug console
  exit_extended = 0x20,  ///< a1: {reason, exit code}; QEMU exits with that code
};

[[gnu::noinline]] inline std::uintptr_t call(op operation, const void* argument) {
  register std::uintptr_t a0 asm("a0") = static_cast<std::uintptr_t>(operation);
  register const void* a1 asm("a1") = argument;
  asm volatile(
      ".option push\n\t"
      ".option norvc\n\t"
      ".balign 16\n\t"
      "slli x0, x0, 0x1f\n\t"
      "ebreak\n\t"
      "srai x0, x0, 7\n\t"
      ".option pop"
      : "+r"(a0)
      : "r"(a1)
      : "memory");
  return a0;
}

inline void write(const char* text) { call(op::write0, text); }

/// Ends the emulation with `code` as QEMU's exit status (ADP_Stopped_ApplicationExit).
[[noreturn]] inline void exit(std::uint32_t code) {
  const std::uintptr_t block[2] = {0x20026u, code};
  call(op::exit_extended, block);
  for (;;) {
  }
}

}  // namespace tessera::qemu::semihosting
