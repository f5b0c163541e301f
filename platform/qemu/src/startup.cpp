// Startup of the QEMU Cortex-M boards (mps2-an386, mps2-an500, mps3-an547): the vector table,
// the reset handler and the fault handlers.
//
// QEMU loads the ELF and starts the core from the vector table at address 0 (initial SP, then
// the reset handler); the linker scripts in ../ld put `.vectors` there. The reset handler does
// what crt0 would: enables the FPU (and with it MVE on the M55), copies .data from its load
// address, zeroes .bss, opens the semihosting handles, runs the static constructors and calls
// exit(main()). newlib's rdimon _exit reports the status through SYS_EXIT_EXTENDED, so a
// non-zero return from main() is QEMU's exit status and fails the ctest.
//
// A fault or an unexpected interrupt prints its exception number and ends QEMU with status
// 128 + number instead of spinning until the test times out.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "semihosting.hpp"

extern "C" {
// Linker script symbols (../ld/sections.ld).
extern char __stack_top[];
extern char __data_start[];
extern char __data_end[];
extern const char __data_load[];
extern char __bss_start__[];
extern char __bss_end__[];

// newlib / librdimon.
void initialise_monitor_handles();
void __libc_init_array();
// The firmware's main(), under another name: C++ forbids using main itself.
int tessera_qemu_application_main() __asm__("main");

// -nostartfiles drops crti/crtn and crtbegin: __libc_init_array still calls _init and _fini,
// and the destructors of static objects are registered with __cxa_atexit(..., &__dso_handle).
void _init() {}
void _fini() {}
void* __dso_handle = nullptr;

using handler = void (*)();
[[noreturn]] void Reset_Handler() noexcept;
void Default_Handler() noexcept;
// Weak: a firmware may define its own (the instruction counter defines SysTick_Handler).
void NMI_Handler() noexcept __attribute__((weak, alias("Default_Handler")));
void HardFault_Handler() noexcept __attribute__((weak, alias("Default_Handler")));
void MemManage_Handler() noexcept __attribute__((weak, alias("Default_Handler")));
void BusFault_Handler() noexcept __attribute__((weak, alias("Default_Handler")));
void UsageFault_Handler() noexcept __attribute__((weak, alias("Default_Handler")));
void SecureFault_Handler() noexcept __attribute__((weak, alias("Default_Handler")));
void SVC_Handler() noexcept __attribute__((weak, alias("Default_Handler")));
void DebugMon_Handler() noexcept __attribute__((weak, alias("Default_Handler")));
void PendSV_Handler() noexcept __attribute__((weak, alias("Default_Handler")));
void SysTick_Handler() noexcept __attribute__((weak, alias("Default_Handler")));
}

namespace {

// No external interrupt is enabled; the table still covers the first 64 so that a stray one
// lands in Default_Handler rather than at a random address.
constexpr int external_interrupts = 64;

struct vector_table {
  const void* initial_stack;
  handler system[15];
  handler external[external_interrupts];
};

constexpr vector_table make_vector_table() {
  vector_table t{__stack_top,
                 {Reset_Handler, NMI_Handler, HardFault_Handler, MemManage_Handler, BusFault_Handler,
                  UsageFault_Handler, SecureFault_Handler, nullptr, nullptr, nullptr, SVC_Handler,
                  DebugMon_Handler, nullptr, PendSV_Handler, SysTick_Handler},
                 {}};
  for (auto& h : t.external) h = Default_Handler;
  return t;
}

}  // namespace

// `used` and the KEEP in the linker script keep it through --gc-sections.
[[gnu::section(".vectors"), gnu::used]] constinit const vector_table tessera_qemu_vectors = make_vector_table();

extern "C" [[noreturn]] void Reset_Handler() noexcept {
  // CPACR: full access to CP10/CP11 (the FPU, and MVE on Armv8.1-M) before any FP instruction;
  // the barriers make the new access rights visible to the instructions that follow.
  *reinterpret_cast<volatile std::uint32_t*>(0xE000ED88) |= 0xFu << 20;
  asm volatile("dsb\n\tisb" ::: "memory");

  std::memcpy(__data_start, __data_load, static_cast<std::size_t>(__data_end - __data_start));
  std::memset(__bss_start__, 0, static_cast<std::size_t>(__bss_end__ - __bss_start__));

  initialise_monitor_handles();
  __libc_init_array();
  std::exit(tessera_qemu_application_main());
}

namespace {

void append_hex(char*& out, std::uint32_t value) {
  for (int shift = 28; shift >= 0; shift -= 4) *out++ = "0123456789abcdef"[(value >> shift) & 0xFu];
}

}  // namespace

// Reports the exception number and the interrupted pc, without printf (the C library may be what
// faulted), and ends QEMU with status 128 + number.
extern "C" [[noreturn, gnu::used]] void tessera_qemu_report_exception(const std::uint32_t* frame) {
  std::uint32_t ipsr;
  asm volatile("mrs %0, ipsr" : "=r"(ipsr));
  const std::uint32_t exception = ipsr & 0x1FFu;
  char text[192];
  char* out = text;
  auto append = [&](const char* s) { while (*s) *out++ = *s++; };
  append("tessera_qemu: unexpected exception ");
  *out++ = static_cast<char>('0' + exception / 100);
  *out++ = static_cast<char>('0' + exception / 10 % 10);
  *out++ = static_cast<char>('0' + exception % 10);
  append(" (3 HardFault, 4 MemManage, 5 BusFault, 6 UsageFault, 7 SecureFault) at pc 0x");
  append_hex(out, frame[6]);
  append(", cfsr 0x");
  append_hex(out, *reinterpret_cast<volatile std::uint32_t*>(0xE000ED28));
  append("\n");
  *out = '\0';
  tessera::qemu::semihosting::write(text);
  tessera::qemu::semihosting::exit(128 + exception);
}

// Naked: passes the stacked exception frame (MSP or PSP, as EXC_RETURN bit 2 says) untouched.
extern "C" [[gnu::naked]] void Default_Handler() noexcept {
  asm volatile(
      "tst lr, #4\n\t"
      "ite eq\n\t"
      "mrseq r0, msp\n\t"
      "mrsne r0, psp\n\t"
      "b tessera_qemu_report_exception\n\t");
}
