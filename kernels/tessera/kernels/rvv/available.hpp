// Whether the rvv family's kernels can run in this translation unit: when the compiler targets
// RV32 with the vector extension (RVV 1.0 with 64-bit elements: the requantization multiplies
// into int64 lanes) and has the v0.12 intrinsics (`__riscv_`-prefixed, explicit rounding
// modes: clang 16 or later), unless TESSERA_FORCE_REFERENCE_KERNELS is defined. GCC 12 defines
// __riscv_vector for rv32gcv but has no riscv_vector.h: the intrinsics check keeps it out. The
// one place this is decided: family.hpp's table and rvv/kernels.hpp both read
// TESSERA_KERNELS_RVV.
#pragma once

#if !defined(TESSERA_FORCE_REFERENCE_KERNELS) && defined(__riscv_vector) && defined(__riscv_xlen) && \
    __riscv_xlen == 32 && defined(__riscv_v_elen) && __riscv_v_elen >= 64 && defined(__riscv_v_intrinsic) && \
    __riscv_v_intrinsic >= 12000
#define TESSERA_KERNELS_RVV 1
#else
#define TESSERA_KERNELS_RVV 0
#endif
