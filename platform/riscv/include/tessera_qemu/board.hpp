// The QEMU machine a RISC-V firmware is linked for: QEMU's riscv32 `virt` (-bios none).
//
// tessera_add_firmware (cmake/TesseraFirmware.cmake) defines TESSERA_QEMU_BOARD_VIRT and
// TESSERA_QEMU_CORE (the toolchain's TESSERA_CPU: rv32imc, rv32gcv) for the firmware and its
// platform objects.
//
//   board  core                 memory (QEMU loads the ELF)             harts
//   virt   rv32imc / rv32gcv    DRAM 128 MiB @0x80000000 (ld/virt.ld)   -smp 1..8, all boot at 0x80000000
//
// Memory map from `qemu-system-riscv32 -M virt -monitor stdio` / `info mtree` (QEMU 7.2): CLINT
// at 0x02000000 (msip, mtimecmp, mtime at 10 MHz), DRAM at 0x80000000.
#pragma once

namespace tessera::qemu {

struct board_info {
  const char* name;  ///< QEMU machine (-M)
  const char* core;  ///< the ISA the firmware is compiled for
};

#if !defined(TESSERA_QEMU_BOARD_VIRT) || !defined(TESSERA_QEMU_CORE)
#error "tessera_qemu/board.hpp: no TESSERA_QEMU_BOARD_VIRT / TESSERA_QEMU_CORE (link the firmware with tessera_add_firmware)"
#endif
inline constexpr board_info board{"virt", TESSERA_QEMU_CORE};

}  // namespace tessera::qemu
