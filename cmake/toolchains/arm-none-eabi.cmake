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

# Libraries and headers come from the toolchain's own tree; programs from the host.
set(CMAKE_FIND_ROOT_PATH /usr/lib/arm-none-eabi)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Boost.Hana is header-only, but the cross compiler must not search /usr/include (it would pick
# the host's libc headers): give it a folder that holds only a link to the host's Boost. The
# top-level CMakeLists.txt turns it into the Boost::headers target.
set(TESSERA_HOST_BOOST_INCLUDE_DIR /usr/include CACHE PATH "Folder holding the host's boost/ headers")
set(TESSERA_CROSS_BOOST_INCLUDE_DIR ${CMAKE_BINARY_DIR}/boost-only)
if(EXISTS ${TESSERA_HOST_BOOST_INCLUDE_DIR}/boost/version.hpp AND NOT EXISTS ${TESSERA_CROSS_BOOST_INCLUDE_DIR}/boost)
  file(MAKE_DIRECTORY ${TESSERA_CROSS_BOOST_INCLUDE_DIR})
  file(CREATE_LINK ${TESSERA_HOST_BOOST_INCLUDE_DIR}/boost ${TESSERA_CROSS_BOOST_INCLUDE_DIR}/boost SYMBOLIC)
endif()

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
