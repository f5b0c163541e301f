# Cortex-M4F (Armv7E-M, DSP extension, single-precision FPU), run under QEMU's mps2-an386.
#   cmake --preset cortex-m4     or    cmake -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/cortex-m4.cmake ...
set(TESSERA_CPU cortex-m4)
set(TESSERA_CPU_FLAGS "-mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard")
set(TESSERA_QEMU_BOARD mps2-an386)
include(${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi.cmake)
