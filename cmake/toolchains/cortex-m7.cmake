# Cortex-M7 (Armv7E-M, DSP extension, double-precision FPU), run under QEMU's mps2-an500.
set(TESSERA_CPU cortex-m7)
set(TESSERA_CPU_FLAGS "-mcpu=cortex-m7 -mfpu=fpv5-d16 -mfloat-abi=hard")
set(TESSERA_QEMU_BOARD mps2-an500)
include(${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi.cmake)
