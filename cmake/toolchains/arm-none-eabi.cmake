# Shared part of the Cortex-M toolchain files (cortex-m4.cmake, cortex-m7.cmake, cortex-m55.cmake):
# Debian's arm-none-eabi GCC 12 with newlib, bare metal, firmware run under qemu-system-arm.
#
# The including file sets, before including this one:
#   TESSERA_CPU_FLAGS        -mcpu/-mfpu/-mfloat-abi
#   TESSERA_QEMU_BOARD       the QEMU machine that emulates that core (mps2-an386, ...)
#   TESSERA_ARM_CLANG_TARGET (optional) clang's target triple (thumbv7em-none-eabihf, ...): C++
#                            is then compiled by clang++ with the same flags, against the
#                            headers arm-none-eabi-g++ would use for these flags (newlib's C
#                            headers, the multilib's libstdc++ headers; clang's own builtin
#                            headers instead of GCC's), and arm-none-eabi-g++ still links
#                            (GNU ld, the multilib's newlib, libstdc++, libgcc and crt): clang's
#                            objects follow the same AAPCS (-mfloat-abi=hard: VFP registers)
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
if(TESSERA_ARM_CLANG_TARGET)
  find_program(TESSERA_ARM_CLANGXX NAMES clang++-19 clang++ DOC "clang++ (19) for the Cortex-M clang presets")
  if(NOT TESSERA_ARM_CLANGXX)
    message(FATAL_ERROR "tessera: the clang Cortex-M presets need clang++ 19 (Debian 12: apt install clang-19; scripts/install-deps.sh)")
  endif()
  set(CMAKE_CXX_COMPILER ${TESSERA_ARM_CLANGXX})
  set(CMAKE_CXX_COMPILER_TARGET ${TESSERA_ARM_CLANG_TARGET})
  # The include folders arm-none-eabi-g++ searches for these flags (its multilib's libstdc++
  # configuration folder, e.g. c++/12.2.1/arm-none-eabi/thumb/v7e-m+fp/hard, and newlib's
  # include), read from its -v output so that no version or layout is written here. GCC's own
  # folders (lib/gcc/arm-none-eabi/<version>/include, include-fixed: stddef.h, arm_acle.h, ...)
  # are left out: clang has its own builtin headers, and -nostdlibinc keeps only those.
  separate_arguments(tessera_cpu_flags UNIX_COMMAND "-mthumb ${TESSERA_CPU_FLAGS}")
  execute_process(COMMAND arm-none-eabi-g++ ${tessera_cpu_flags} -x c++ -E -v -
                  INPUT_FILE /dev/null OUTPUT_QUIET ERROR_VARIABLE tessera_gcc_v RESULT_VARIABLE tessera_rc)
  if(NOT tessera_rc EQUAL 0)
    message(FATAL_ERROR "tessera: arm-none-eabi-g++ (for its newlib and libstdc++ headers) failed:\n${tessera_gcc_v}")
  endif()
  string(REGEX MATCH "#include <...> search starts here:\n(.*)\nEnd of search list" tessera_match "${tessera_gcc_v}")
  string(REPLACE "\n" ";" tessera_gcc_dirs "${CMAKE_MATCH_1}")
  set(tessera_cxx_includes "")
  foreach(dir IN LISTS tessera_gcc_dirs)
    string(STRIP "${dir}" dir)
    cmake_path(NORMAL_PATH dir)
    if(dir MATCHES "/lib/gcc/arm-none-eabi/[^/]+/include(-fixed)?/?$")
      continue()
    endif()
    string(APPEND tessera_cxx_includes " -isystem ${dir}")
  endforeach()
  if(NOT tessera_cxx_includes MATCHES "/c\\+\\+/")
    message(FATAL_ERROR "tessera: no libstdc++ headers for arm-none-eabi found (Debian: apt install libstdc++-arm-none-eabi-newlib)")
  endif()
  # -fshort-enums: arm-none-eabi GCC's AAPCS variant (and newlib's, libgcc's objects) sizes an
  # enum by its values (Tag_ABI_enum_size small); clang's default for this target is int-sized
  # enums, which GNU ld reports for every object linked against newlib. (int32_t is `int` for
  # clang and `long` for GCC here: same size and calling convention, and no C++ symbol crosses
  # compilers, since the C++ code of a firmware is all compiled by clang.)
  set(CMAKE_CXX_FLAGS_INIT "${tessera_common_flags} -fshort-enums -nostdlibinc${tessera_cxx_includes} -fno-exceptions -fno-rtti")
  # The g++ driver links, as in the GCC presets; the compile flags are clang's, so the rule
  # leaves them out and the linker flags carry the multilib's -mcpu/-mfpu/-mfloat-abi.
  string(APPEND CMAKE_EXE_LINKER_FLAGS_INIT " ${tessera_common_flags}")
  set(CMAKE_CXX_LINK_EXECUTABLE "arm-none-eabi-g++ <CMAKE_CXX_LINK_FLAGS> <LINK_FLAGS> <OBJECTS> -o <TARGET> <LINK_LIBRARIES>")
  # Archives of Arm objects with the cross binutils (clang would look for llvm-ar).
  set(CMAKE_AR arm-none-eabi-ar CACHE FILEPATH "Archiver")
  set(CMAKE_RANLIB arm-none-eabi-ranlib CACHE FILEPATH "Ranlib")
  unset(tessera_cpu_flags)
  unset(tessera_gcc_v)
  unset(tessera_rc)
  unset(tessera_match)
  unset(tessera_gcc_dirs)
  unset(tessera_cxx_includes)
endif()
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
