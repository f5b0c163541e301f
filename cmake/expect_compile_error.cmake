# cmake -DCOMPILER=... -DSOURCE=... -DEXPECTED=<regex> -DINCLUDES=<list> [-DFLAGS=<list>] [-DFORBIDDEN=<regex>]
#       -P expect_compile_error.cmake
# Passes when SOURCE fails to compile, the diagnostics match EXPECTED and (if given) do not match
# FORBIDDEN. FLAGS: extra compiler options (e.g. a cross compiler's -mcpu).
set(flags -std=c++20 -fsyntax-only -fno-exceptions -fno-rtti ${FLAGS})
foreach(dir IN LISTS INCLUDES)
  list(APPEND flags -I${dir})
endforeach()
execute_process(COMMAND ${COMPILER} ${flags} ${SOURCE}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled, but it must fail with: ${EXPECTED}")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECTED}")
  message(FATAL_ERROR "${SOURCE} failed to compile, but not with '${EXPECTED}':\n${err}")
endif()
if(NOT "${FORBIDDEN}" STREQUAL "" AND "${out}${err}" MATCHES "${FORBIDDEN}")
  message(FATAL_ERROR "${SOURCE} failed with '${EXPECTED}', but its output also matches '${FORBIDDEN}':\n${err}")
endif()
message(STATUS "failed as expected: ${EXPECTED}")
