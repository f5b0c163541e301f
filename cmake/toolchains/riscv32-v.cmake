# RV32GCV (the vector extension, RVV 1.0), run under QEMU's riscv32 `virt` with
# `-cpu rv32,v=true,vlen=128` (the kernel equivalence and layer benchmarks also at vlen=256).
# C++ is compiled by clang (16 or later; Debian 12: clang-19): GCC 12 has no RVV intrinsics
# (no riscv_vector.h) and does not vectorise for RVV, and the rvv kernel family
# (kernels/tessera/kernels/rvv/) is written with the intrinsics. The gcc driver links: no
# picolibc multilib has V, so the link uses rv32imafdc (same ilp32d ABI; V adds no ABI change).
set(TESSERA_CPU rv32gcv)
set(TESSERA_RISCV_ARCH "-march=rv32gcv -mabi=ilp32d")  # clang: g includes Zicsr and Zifencei
set(TESSERA_RISCV_LINK_ARCH "-march=rv32imafdc -mabi=ilp32d")
set(TESSERA_QEMU_CPU "rv32,v=true,vlen=128")
set(TESSERA_RISCV_CLANG ON)
include(${CMAKE_CURRENT_LIST_DIR}/riscv32-unknown-elf.cmake)
