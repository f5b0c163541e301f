# What the host build machine's CPU offers the x86 kernel family. The library itself adds no
# architecture flags (users pick theirs); the tests and benchmarks of this project build for
# SSE4.1, which every x86-64 CPU of the last 15 years has, and add AVX2 builds where the CPU
# running them has it.
set(TESSERA_HOST_X86 OFF)
set(TESSERA_HOST_HAS_AVX2 OFF)
if(NOT CMAKE_CROSSCOMPILING AND CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|amd64")
  set(TESSERA_HOST_X86 ON)
  if(EXISTS /proc/cpuinfo)
    file(STRINGS /proc/cpuinfo cpu_flags REGEX "^flags" LIMIT_COUNT 1)
    if(cpu_flags MATCHES " avx2( |$)")
      set(TESSERA_HOST_HAS_AVX2 ON)
    endif()
  endif()
endif()
