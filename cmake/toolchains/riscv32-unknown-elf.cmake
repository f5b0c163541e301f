# Shared part of the RISC-V toolchain files (riscv32.cmake, riscv32-v.cmake): Debian's
# riscv64-unknown-elf GCC 12 with picolibc (C) and the newlib-built libstdc++ headers of
# libstdc++-arm-none-eabi-dev (C++: header-only use, no libstdc++ library is linked), bare
# metal, firmware run under qemu-system-riscv32 -M virt.
#
# The including file sets, before including this one:
#   TESSERA_CPU              a name for the core (rv32imc, rv32gcv)
#   TESSERA_RISCV_ARCH       -march/-mabi of the compiled code
#   TESSERA_RISCV_LINK_ARCH  -march/-mabi picking the picolibc multilib to link (a multilib must
#                            exist for it: `riscv64-unknown-elf-gcc -print-multi-lib`)
#   TESSERA_QEMU_CPU         QEMU's -cpu option (rv32, rv32,v=true,vlen=128)
#   TESSERA_RISCV_CLANG      (optional) ON: C++ is compiled by clang (--target=riscv32-unknown-elf,
#                            TESSERA_RISCV_ARCH), which has the RVV intrinsics GCC 12 lacks; the
#                            gcc driver still links (GNU ld, picolibc's multilib and crt0), and the
#                            headers are the same (picolibc's C headers given explicitly: clang
#                            knows no --specs)
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv32)

set(CMAKE_C_COMPILER riscv64-unknown-elf-gcc)
set(CMAKE_ASM_COMPILER riscv64-unknown-elf-gcc)
if(TESSERA_RISCV_CLANG)
  # Debian 12's clang-19 (scripts/install-deps.sh); 16 is the first with the __riscv_-prefixed
  # RVV intrinsics of the v1.0 intrinsics specification (clang 14 names them without it).
  find_program(TESSERA_RISCV_CLANGXX NAMES clang++-19 clang++-18 clang++-17 clang++-16
               DOC "clang++ (16 or later) for the RVV kernels")
  if(NOT TESSERA_RISCV_CLANGXX)
    message(FATAL_ERROR "tessera: ${TESSERA_CPU} needs clang++ 16 or later for its RVV intrinsics (Debian 12: apt install clang-19; scripts/install-deps.sh)")
  endif()
  set(CMAKE_CXX_COMPILER ${TESSERA_RISCV_CLANGXX})
  set(CMAKE_CXX_COMPILER_TARGET riscv32-unknown-elf)
  # Archives of RISC-V objects with the cross binutils (clang would look for llvm-ar).
  set(CMAKE_AR riscv64-unknown-elf-ar CACHE FILEPATH "Archiver")
  set(CMAKE_RANLIB riscv64-unknown-elf-ranlib CACHE FILEPATH "Ranlib")
else()
  # The gcc driver, not g++: it compiles C++ by extension, and g++ would add -lstdc++, which the
  # picolibc multilibs do not have (nothing of it is needed: the library is header-only).
  set(CMAKE_CXX_COMPILER riscv64-unknown-elf-gcc)
endif()
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(TESSERA_QEMU_BOARD virt)

set(TESSERA_NEWLIB_CXX_INCLUDE_DIR /usr/include/newlib/c++/12.2.1 CACHE PATH
    "libstdc++ headers built for newlib (Debian: libstdc++-arm-none-eabi-dev)")
# The C++ headers are target-neutral but for one folder of configuration (bits/c++config.h,
# built for arm-none-eabi: 32-bit, newlib): it fits rv32 with picolibc's newlib-compatible C headers.
set(tessera_cxx_includes "-nostdinc++ -isystem ${TESSERA_NEWLIB_CXX_INCLUDE_DIR} -isystem ${TESSERA_NEWLIB_CXX_INCLUDE_DIR}/arm-none-eabi")
set(tessera_common_flags "${TESSERA_RISCV_ARCH} --specs=picolibc.specs -ffunction-sections -fdata-sections")
set(CMAKE_C_FLAGS_INIT "${tessera_common_flags}")
set(CMAKE_ASM_FLAGS_INIT "${tessera_common_flags}")
set(tessera_link_flags "${TESSERA_RISCV_LINK_ARCH} --oslib=semihost -nostartfiles -Wl,--gc-sections -Wl,--no-warn-rwx-segments")
if(TESSERA_RISCV_CLANG)
  # -nostdlibinc: only the folders named here (and clang's own, which has riscv_vector.h), never
  # a host or GCC installation's. picolibc.specs adds picolibc's include folder for gcc.
  set(TESSERA_PICOLIBC_INCLUDE_DIR /usr/lib/picolibc/riscv64-unknown-elf/include CACHE PATH "picolibc's C headers")
  set(CMAKE_CXX_FLAGS_INIT "${TESSERA_RISCV_ARCH} -nostdlibinc ${tessera_cxx_includes} -isystem ${TESSERA_PICOLIBC_INCLUDE_DIR} -ffunction-sections -fdata-sections -fno-exceptions -fno-rtti -fno-threadsafe-statics")
  # The gcc driver links (GNU ld, picolibc's crt and libraries of the multilib); the compile
  # flags are clang's, so the rule leaves them out.
  set(CMAKE_EXE_LINKER_FLAGS_INIT "--specs=picolibc.specs ${tessera_link_flags}")
  set(CMAKE_CXX_LINK_EXECUTABLE "riscv64-unknown-elf-gcc <CMAKE_CXX_LINK_FLAGS> <LINK_FLAGS> <OBJECTS> -o <TARGET> <LINK_LIBRARIES>")
else()
  set(CMAKE_CXX_FLAGS_INIT "${tessera_common_flags} ${tessera_cxx_includes} -fno-exceptions -fno-rtti -fno-threadsafe-statics")
  # Linking: the multilib's -march last (CMake puts the linker flags after the compile flags).
  set(CMAKE_EXE_LINKER_FLAGS_INIT "${tessera_link_flags}")
endif()
set(CMAKE_C_FLAGS_RELEASE "-O2 -DNDEBUG" CACHE STRING "Flags used by the C compiler during release builds")
set(CMAKE_CXX_FLAGS_RELEASE "-O2 -DNDEBUG" CACHE STRING "Flags used by the C++ compiler during release builds")
unset(tessera_common_flags)
unset(tessera_cxx_includes)
unset(tessera_link_flags)

# Sysroot (picolibc) and Boost for the cross compiler: bare_metal_sysroot.cmake.
set(TESSERA_SYSROOT /usr/lib/picolibc/riscv64-unknown-elf)
include(${CMAKE_CURRENT_LIST_DIR}/bare_metal_sysroot.cmake)

# ctest runs firmware as
#   qemu-system-riscv32 -M virt -cpu <cpu> -smp <harts> -bios none ... -kernel <firmware.elf>
# (harts: 1, or 8 for the cluster firmware; cmake/TesseraFirmware.cmake). QEMU exits with
# main()'s return value (picolibc's semihosting exit); -icount shift=0 makes minstret count
# instructions deterministically.
find_program(TESSERA_QEMU_SYSTEM qemu-system-riscv32)
if(NOT TESSERA_QEMU_SYSTEM)
  set(TESSERA_QEMU_SYSTEM qemu-system-riscv32)  # reported when a test runs; the build still works
endif()
set(TESSERA_QEMU_MACHINE_OPTIONS -cpu ${TESSERA_QEMU_CPU} -bios none)
set(TESSERA_QEMU_OPTIONS -nographic -semihosting-config enable=on,target=native -icount shift=0 -kernel)
set(CMAKE_CROSSCOMPILING_EMULATOR ${TESSERA_QEMU_SYSTEM} -M virt ${TESSERA_QEMU_MACHINE_OPTIONS} -smp 1 ${TESSERA_QEMU_OPTIONS})
