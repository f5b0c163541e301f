# cmake -DCOMPILER=... -DSOURCE=... -DEXPECTED=<regex> -DINCLUDES=<list> [-DFLAGS=<list>] -P expect_compile_error.cmake
# Passes when SOURCE fails to compile and the diagnostics match EXPECTED. FLAGS: extra compiler
# options (e.g. a cross compiler's -mcpu).
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
message(STATUS "failed as expected: ${EXPECTED}")
