# Cortex-M4F compiled by clang (Armv7E-M, DSP extension, single-precision FPU), run under QEMU's
# mps2-an386 like the cortex-m4 preset, with the same ABI, newlib, libstdc++ headers and link.
#   cmake --preset cortex-m4-clang
# clang++ (19: Debian 12's clang-19) compiles C++ for --target=thumbv7em-none-eabihf; the
# arm-none-eabi GCC installation provides the headers and the link (arm-none-eabi.cmake).
set(TESSERA_CPU cortex-m4)
set(TESSERA_CPU_FLAGS "-mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard")
set(TESSERA_ARM_CLANG_TARGET thumbv7em-none-eabihf)
set(TESSERA_QEMU_BOARD mps2-an386)
include(${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi.cmake)
