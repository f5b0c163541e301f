// Whether the rv32 family's kernels can run in this translation unit: when the compiler targets
// 32-bit RISC-V (RV32IM and up: the kernels need only the M extension's mul and mulh), unless
// TESSERA_FORCE_REFERENCE_KERNELS is defined. The one place this is decided: family.hpp's
// table and rv32/kernels.hpp both read TESSERA_KERNELS_RV32.
#pragma once

#if !defined(TESSERA_FORCE_REFERENCE_KERNELS) && defined(__riscv) && defined(__riscv_xlen) && __riscv_xlen == 32 && \
    defined(__riscv_mul)
#define TESSERA_KERNELS_RV32 1
#else
#define TESSERA_KERNELS_RV32 0
#endif
