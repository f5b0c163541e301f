# Compiles SOURCE for Cortex-M4 (-O2 -fno-exceptions -fno-rtti) and fails if the object file
# references the heap or exception support. FLAGS (a list) replaces the core flags
# (default: Cortex-M4 with hard float); FORBIDDEN adds symbols that must not be referenced.
if(NOT DEFINED FLAGS)
  set(FLAGS -mcpu=cortex-m4 -mthumb -mfloat-abi=hard)
endif()
set(flags -std=c++20 ${FLAGS} -O2 -fno-exceptions -fno-rtti -Wall -Wextra)
foreach(dir IN LISTS INCLUDES)
  list(APPEND flags -I${dir})
endforeach()
execute_process(COMMAND ${CXX} ${flags} -c ${SOURCE} -o ${OBJECT} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "target code does not compile with ${FLAGS}:\n${err}")
endif()
execute_process(COMMAND ${NM} -C -u ${OBJECT} OUTPUT_VARIABLE undefined)
foreach(forbidden malloc free "operator new" "operator delete" __cxa_throw __cxa_allocate_exception __gxx_personality
        ${FORBIDDEN})
  string(FIND "${undefined}" "${forbidden}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "target code references ${forbidden}:\n${undefined}")
  endif()
endforeach()
message(STATUS "object compiled with ${FLAGS}; undefined symbols:\n${undefined}")
