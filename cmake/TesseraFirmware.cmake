# Firmware for QEMU's Cortex-M boards and its RISC-V `virt` machine, for cross builds with
# cmake/toolchains/cortex-m*.cmake and riscv32*.cmake.
#
#   tessera_add_firmware(<target> SOURCES <file>... [BOARD <board>] [HARTS <n>])
#     An executable <target>.elf for <board> (default: the toolchain's TESSERA_QEMU_BOARD) with
#     the startup code, linker script, semihosting (newlib's rdimon or picolibc's semihost:
#     printf, exit status) and the instruction counter of platform/qemu (Arm) or platform/riscv
#     (virt), linked with tessera::tessera; a link map <target>.map beside it. HARTS (virt only,
#     default 1): QEMU's -smp, for cluster firmware (tessera_qemu/cluster.hpp). Add libraries,
#     definitions or options with the target_* commands.
#
#   tessera_add_qemu_test(<name> <target> [TIMEOUT <seconds>])
#     A ctest that runs the firmware under QEMU (the target's CROSSCOMPILING_EMULATOR) and
#     passes when main() returns 0. Default timeout 120 s: a hung firmware fails instead of
#     hanging ctest.
#
#   tessera_add_qemu_vlen_test(<name> <target> <vlen> [TIMEOUT <seconds>])
#     The same on a RISC-V vector core with another vector length (QEMU -cpu rv32,v=true,vlen=<vlen>):
#     the firmware is vector-length agnostic, so one build runs at every VLEN.
#
# Boards (platform/qemu/ld/<board>.ld): mps2-an386 (Cortex-M4), mps2-an500 (Cortex-M7),
# mps3-an547 (Cortex-M55); platform/riscv/ld/virt.ld: virt (riscv32, the toolchain's -march).
# A board's core must be the one the toolchain compiles for.
include_guard(GLOBAL)

set(TESSERA_QEMU_PLATFORM_DIR ${CMAKE_CURRENT_LIST_DIR}/../platform/qemu)
cmake_path(NORMAL_PATH TESSERA_QEMU_PLATFORM_DIR)
set(TESSERA_RISCV_PLATFORM_DIR ${CMAKE_CURRENT_LIST_DIR}/../platform/riscv)
cmake_path(NORMAL_PATH TESSERA_RISCV_PLATFORM_DIR)
# The Cortex-M toolchain files name the emulator TESSERA_QEMU_SYSTEM_ARM.
if(NOT TESSERA_QEMU_SYSTEM AND TESSERA_QEMU_SYSTEM_ARM)
  set(TESSERA_QEMU_SYSTEM ${TESSERA_QEMU_SYSTEM_ARM})
endif()

function(_tessera_qemu_board_core board out)
  if(board STREQUAL "mps2-an386")
    set(${out} cortex-m4 PARENT_SCOPE)
  elseif(board STREQUAL "mps2-an500")
    set(${out} cortex-m7 PARENT_SCOPE)
  elseif(board STREQUAL "mps3-an547")
    set(${out} cortex-m55 PARENT_SCOPE)
  elseif(board STREQUAL "virt")
    set(${out} ${TESSERA_CPU} PARENT_SCOPE)  # any rv32 ISA the toolchain compiles for
  else()
    message(FATAL_ERROR "tessera: unknown QEMU board '${board}' (known: mps2-an386, mps2-an500, mps3-an547, virt)")
  endif()
endfunction()

# The board's platform, built once per board: the startup objects (always linked: they hold the
# vector table) and the instruction counter as a static library (linked only when used, so that
# a firmware defining its own SysTick_Handler does not collide with it).
function(_tessera_qemu_platform board out)
  string(MAKE_C_IDENTIFIER ${board} id)
  set(startup tessera_qemu_startup_${id})
  set(counter tessera_qemu_counter_${id})
  set(${out} ${startup} PARENT_SCOPE)
  if(TARGET ${startup})
    return()
  endif()
  _tessera_qemu_board_core(${board} core)
  if(DEFINED TESSERA_CPU AND NOT core STREQUAL TESSERA_CPU)
    message(FATAL_ERROR "tessera: board ${board} emulates a ${core}, but the toolchain compiles for ${TESSERA_CPU}")
  endif()
  string(TOUPPER ${id} macro)
  if(board STREQUAL "virt")
    _tessera_riscv_platform(${startup} ${counter})
    return()
  endif()
  set(dir ${TESSERA_QEMU_PLATFORM_DIR})

  add_library(${counter} STATIC ${dir}/src/instruction_counter.cpp)
  target_include_directories(${counter} PUBLIC ${dir}/include)
  target_compile_definitions(${counter} PUBLIC TESSERA_QEMU_BOARD_${macro})
  target_compile_features(${counter} PUBLIC cxx_std_20)

  add_library(${startup} OBJECT ${dir}/src/startup.cpp)
  target_link_libraries(${startup} PUBLIC ${counter})
  target_link_options(${startup} INTERFACE --specs=rdimon.specs -nostartfiles -L${dir}/ld -T${board}.ld
                      -Wl,--gc-sections)
  if(TARGET tessera_warnings)
    target_link_libraries(${counter} PRIVATE tessera_warnings)
    target_link_libraries(${startup} PRIVATE tessera_warnings)
  endif()
endfunction()

# platform/riscv: the hart dispatcher, startup, trap report and cluster (startup objects), the
# minstret counter (library).
function(_tessera_riscv_platform startup counter)
  set(dir ${TESSERA_RISCV_PLATFORM_DIR})
  add_library(${counter} STATIC ${dir}/src/instruction_counter.cpp)
  target_include_directories(${counter} PUBLIC ${dir}/include)
  target_compile_definitions(${counter} PUBLIC TESSERA_QEMU_BOARD_VIRT "TESSERA_QEMU_CORE=\"${TESSERA_CPU}\"")
  target_compile_features(${counter} PUBLIC cxx_std_20)

  add_library(${startup} OBJECT ${dir}/src/entry.cpp ${dir}/src/startup.cpp ${dir}/src/harts.cpp)
  target_link_libraries(${startup} PUBLIC ${counter})
  target_link_options(${startup} INTERFACE -L${dir}/ld -Tvirt.ld)
  if(TARGET tessera_warnings)
    target_link_libraries(${counter} PRIVATE tessera_warnings)
    target_link_libraries(${startup} PRIVATE tessera_warnings)
  endif()
endfunction()

function(tessera_add_firmware target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "BOARD;HARTS" "SOURCES")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tessera_add_firmware(${target}): unexpected arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "tessera_add_firmware(${target}): no SOURCES")
  endif()
  if(NOT arg_BOARD)
    if(NOT TESSERA_QEMU_BOARD)
      message(FATAL_ERROR "tessera_add_firmware(${target}): no BOARD and no TESSERA_QEMU_BOARD (use cmake/toolchains/cortex-m*.cmake or riscv32*.cmake)")
    endif()
    set(arg_BOARD ${TESSERA_QEMU_BOARD})
  endif()
  if(NOT TESSERA_QEMU_SYSTEM OR NOT TESSERA_QEMU_OPTIONS)
    message(FATAL_ERROR "tessera_add_firmware(${target}): TESSERA_QEMU_SYSTEM(_ARM) and TESSERA_QEMU_OPTIONS come from the toolchain file (cmake/toolchains/)")
  endif()
  if(NOT arg_HARTS)
    set(arg_HARTS 1)
  endif()
  set(machine ${arg_BOARD})
  set(ld_dir ${TESSERA_QEMU_PLATFORM_DIR}/ld)
  set(ld_files ${ld_dir}/${arg_BOARD}.ld ${ld_dir}/sections.ld)
  if(arg_BOARD STREQUAL "virt")
    list(APPEND machine ${TESSERA_QEMU_MACHINE_OPTIONS} -smp ${arg_HARTS})
    set(ld_files ${TESSERA_RISCV_PLATFORM_DIR}/ld/virt.ld)
  elseif(NOT arg_HARTS EQUAL 1)
    message(FATAL_ERROR "tessera_add_firmware(${target}): HARTS is for the RISC-V virt board only")
  endif()
  _tessera_qemu_platform(${arg_BOARD} platform)

  add_executable(${target} ${arg_SOURCES})
  target_link_libraries(${target} PRIVATE ${platform} tessera::tessera)
  target_link_options(${target} PRIVATE -Wl,-Map=$<TARGET_FILE_DIR:${target}>/${target}.map)
  set_target_properties(${target} PROPERTIES
    SUFFIX .elf
    LINK_DEPENDS "${ld_files}"
    CROSSCOMPILING_EMULATOR "${TESSERA_QEMU_SYSTEM};-M;${machine};${TESSERA_QEMU_OPTIONS}"
    TESSERA_QEMU_BOARD ${arg_BOARD})
endfunction()

function(tessera_add_qemu_test name target)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "TIMEOUT" "")
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 120)
  endif()
  add_test(NAME ${name} COMMAND ${target})
  set_tests_properties(${name} PROPERTIES TIMEOUT ${arg_TIMEOUT} LABELS qemu)
endfunction()

function(tessera_add_qemu_vlen_test name target vlen)
  cmake_parse_arguments(PARSE_ARGV 3 arg "" "TIMEOUT" "")
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 120)
  endif()
  get_target_property(emulator ${target} CROSSCOMPILING_EMULATOR)
  list(TRANSFORM emulator REPLACE "vlen=[0-9]+" "vlen=${vlen}")
  add_test(NAME ${name} COMMAND ${emulator} $<TARGET_FILE:${target}>)
  set_tests_properties(${name} PROPERTIES TIMEOUT ${arg_TIMEOUT} LABELS qemu)
endfunction()
