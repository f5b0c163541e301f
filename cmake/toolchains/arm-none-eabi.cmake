# Shared part of the Cortex-M toolchain files (cortex-m4.cmake, cortex-m7.cmake, cortex-m55.cmake):
# Debian's arm-none-eabi GCC 12 with newlib, bare metal, firmware run under qemu-system-arm.
#
# The including file sets, before including this one:
#   TESSERA_CPU_FLAGS    -mcpu/-mfpu/-mfloat-abi
#   TESSERA_QEMU_BOARD   the QEMU machine that emulates that core (mps2-an386, ...)
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
# Without a startup file and linker script the compiler checks cannot link an executable.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(tessera_common_flags "-mthumb ${TESSERA_CPU_FLAGS} -ffunction-sections -fdata-sections")
set(CMAKE_C_FLAGS_INIT "${tessera_common_flags}")
set(CMAKE_CXX_FLAGS_INIT "${tessera_common_flags} -fno-exceptions -fno-rtti")
set(CMAKE_ASM_FLAGS_INIT "${tessera_common_flags}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,--gc-sections")
# Release firmware at -O2, the level the Arm kernels are tuned and compared with CMSIS-NN at.
# (A cache entry: CMake appends its own -O3 to *_FLAGS_RELEASE_INIT.)
set(CMAKE_C_FLAGS_RELEASE "-O2 -DNDEBUG" CACHE STRING "Flags used by the C compiler during release builds")
set(CMAKE_CXX_FLAGS_RELEASE "-O2 -DNDEBUG" CACHE STRING "Flags used by the C++ compiler during release builds")
unset(tessera_common_flags)

# Sysroot (libraries, headers) and Boost for the cross compiler: bare_metal_sysroot.cmake.
set(TESSERA_SYSROOT /usr/lib/arm-none-eabi)
include(${CMAKE_CURRENT_LIST_DIR}/bare_metal_sysroot.cmake)

# ctest runs firmware (add_test on an executable target, see cmake/TesseraFirmware.cmake) as
#   qemu-system-arm -M <board> ... -kernel <firmware.elf>
# QEMU exits with main()'s return value (semihosting SYS_EXIT_EXTENDED, checked by
# tests/qemu/exit_status.cpp); -icount shift=0 makes the instruction counter deterministic.
find_program(TESSERA_QEMU_SYSTEM_ARM qemu-system-arm)
if(NOT TESSERA_QEMU_SYSTEM_ARM)
  set(TESSERA_QEMU_SYSTEM_ARM qemu-system-arm)  # reported when a test runs; the build still works
endif()
# The options after `-M <board>`; cmake/TesseraFirmware.cmake uses them for firmware of other boards.
set(TESSERA_QEMU_OPTIONS -nographic -semihosting-config enable=on,target=native -icount shift=0 -kernel)
set(CMAKE_CROSSCOMPILING_EMULATOR ${TESSERA_QEMU_SYSTEM_ARM} -M ${TESSERA_QEMU_BOARD} ${TESSERA_QEMU_OPTIONS})
