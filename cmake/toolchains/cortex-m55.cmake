# Cortex-M55 (Armv8.1-M Mainline, Helium/MVE with floating point, DSP extension), run under
# QEMU's mps3-an547. GCC 12 enables MVE (__ARM_FEATURE_MVE == 3, arm_mve.h usable) only with
# the hard-float ABI, hence -mfloat-abi=hard.
set(TESSERA_CPU cortex-m55)
set(TESSERA_CPU_FLAGS "-mcpu=cortex-m55 -mfloat-abi=hard")
set(TESSERA_QEMU_BOARD mps3-an547)
include(${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi.cmake)
