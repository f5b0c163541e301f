// Startup of QEMU's riscv32 `virt` machine (-bios none): what hart 0 does after src/entry.S
// gave it a stack, and the report of an unexpected trap.
//
// QEMU loads every section at its address in RAM, so .data needs no copy; hart 0 zeroes .bss,
// runs the static constructors and calls exit(main()). picolibc's semihosting _exit reports the
// status (SYS_EXIT_EXTENDED), so a non-zero return from main() is QEMU's exit status and fails
// the ctest. A trap (illegal instruction, misaligned or faulting access, ebreak outside
// semihosting) prints its cause and pc and ends QEMU with status 128 + cause.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "semihosting.hpp"

extern "C" {
// Linker script symbols (../ld/virt.ld).
extern char __bss_start[];
extern char __bss_end[];

void __libc_init_array();
// The firmware's main(), under another name: C++ forbids using main itself.
int tessera_qemu_application_main() __asm__("main");

// No crt0: __libc_init_array still calls _init and _fini, and static destructors are registered
// with __cxa_atexit(..., &__dso_handle).
void _init() {}
void _fini() {}
void* __dso_handle = nullptr;

[[noreturn]] void tessera_qemu_hart0_start();
}

namespace tessera::qemu::detail {
/// Releases the harts parked in tessera_qemu_worker_start (src/harts.cpp), once .bss is zero.
void release_workers();
}  // namespace tessera::qemu::detail

extern "C" [[noreturn]] void tessera_qemu_hart0_start() {
  std::memset(__bss_start, 0, static_cast<std::size_t>(__bss_end - __bss_start));
  tessera::qemu::detail::release_workers();
  __libc_init_array();
  std::exit(tessera_qemu_application_main());
}

namespace {

void append_hex(char*& out, std::uint32_t value) {
  for (int shift = 28; shift >= 0; shift -= 4) *out++ = "0123456789abcdef"[(value >> shift) & 0xFu];
}

}  // namespace

// Reports the trap without printf (the C library may be what faulted) and ends QEMU with status
// 128 + cause (2: illegal instruction, 4/6: misaligned load/store, 5/7: access fault).
extern "C" [[noreturn, gnu::used]] void tessera_qemu_report_trap(std::uint32_t cause, std::uint32_t pc,
                                                                 std::uint32_t tval, std::uint32_t hart) {
  char text[160];
  char* out = text;
  auto append = [&](const char* s) { while (*s) *out++ = *s++; };
  append("tessera_qemu: unexpected trap, mcause 0x");
  append_hex(out, cause);
  append(" (2 illegal instruction, 5 load fault, 7 store fault) at pc 0x");
  append_hex(out, pc);
  append(", mtval 0x");
  append_hex(out, tval);
  append(", hart ");
  *out++ = static_cast<char>('0' + hart % 10);
  append("\n");
  *out = '\0';
  tessera::qemu::semihosting::write(text);
  tessera::qemu::semihosting::exit(128 + (cause & 0x7Fu));
}
