# RV32IMC (scalar integer, compressed), run under QEMU's riscv32 `virt`.
#   cmake --preset riscv32     or    cmake -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/riscv32.cmake ...
# GCC 12 (ISA spec 20191213) wants Zicsr/Zifencei spelled out for CSR instructions; the link
# picks the rv32im multilib of picolibc (there is no rv32imc one; C only changes encodings).
set(TESSERA_CPU rv32imc)
set(TESSERA_RISCV_ARCH "-march=rv32imc_zicsr_zifencei -mabi=ilp32")
set(TESSERA_RISCV_LINK_ARCH "-march=rv32imc -mabi=ilp32")
set(TESSERA_QEMU_CPU rv32)
include(${CMAKE_CURRENT_LIST_DIR}/riscv32-unknown-elf.cmake)
