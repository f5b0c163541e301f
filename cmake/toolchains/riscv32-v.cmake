# RV32GCV (the vector extension, RVV 1.0, VLEN 128), run under QEMU's riscv32 `virt` with
# `-cpu rv32,v=true,vlen=128`. GCC 12 compiles for it but has no RVV intrinsics (no
# riscv_vector.h) and does not auto-vectorise for RVV: until a clang-built RVV kernel family
# lands, this preset runs the reference kernels built for rv32gcv (and checks that the startup
# turns the vector unit on: tests/qemu/smoke.cpp executes vector instructions). No picolibc
# multilib has V: the link uses rv32imafdc (same ilp32d ABI; V adds no ABI change).
set(TESSERA_CPU rv32gcv)
set(TESSERA_RISCV_ARCH "-march=rv32gcv_zicsr_zifencei -mabi=ilp32d")
set(TESSERA_RISCV_LINK_ARCH "-march=rv32imafdc -mabi=ilp32d")
set(TESSERA_QEMU_CPU "rv32,v=true,vlen=128")
include(${CMAKE_CURRENT_LIST_DIR}/riscv32-unknown-elf.cmake)
