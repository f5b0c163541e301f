// The QEMU board a firmware is linked for: its name, core and SysTick clock.
//
// tessera_add_firmware (cmake/TesseraFirmware.cmake) defines exactly one
// TESSERA_QEMU_BOARD_<BOARD> macro for the firmware and its platform objects.
//
//   board        core        code at 0 (QEMU loads the ELF)   data, bss, heap, stack      SysTick
//   mps2-an386   Cortex-M4   SSRAM1 4 MiB                     SSRAM2/3 4 MiB @0x20000000   25 MHz
//   mps2-an500   Cortex-M7   SSRAM1 4 MiB                     SSRAM2/3 4 MiB @0x20000000   25 MHz
//   mps3-an547   Cortex-M55  ITCM 512 KiB                     DTCM 512 KiB @0x20000000     32 MHz
//
// Memory maps from `qemu-system-arm -M <board> -monitor stdio` / `info mtree` (QEMU 7.2).
#pragma once

#include <cstdint>

namespace tessera::qemu {

struct board_info {
  const char* name;          ///< QEMU machine (-M)
  const char* core;          ///< the CPU QEMU emulates on it
  std::uint32_t systick_hz;  ///< SysTick's processor clock: instructions per tick = 1e9 / systick_hz
};

inline constexpr board_info board =
#if defined(TESSERA_QEMU_BOARD_MPS2_AN386)
    {"mps2-an386", "cortex-m4", 25'000'000};
#elif defined(TESSERA_QEMU_BOARD_MPS2_AN500)
    {"mps2-an500", "cortex-m7", 25'000'000};
#elif defined(TESSERA_QEMU_BOARD_MPS3_AN547)
    {"mps3-an547", "cortex-m55", 32'000'000};
#else
#error "tessera_qemu/board.hpp: no TESSERA_QEMU_BOARD_* macro (link the firmware with tessera_add_firmware)"
#endif

/// Guest instructions per SysTick tick under `-icount shift=0` (1 ns per instruction), times 4 so
/// that it is an integer on every board (40 -> 160, 31.25 -> 125).
inline constexpr std::uint64_t quarter_instructions_per_tick = 4'000'000'000ull / board.systick_hz;
static_assert(4'000'000'000ull % board.systick_hz == 0, "board: instructions per tick is not a multiple of 1/4");

}  // namespace tessera::qemu
