# cmake -DCONVERTER=... -DMODEL=... -DOUTPUT=... -DPATTERN=... [-DABSENT=...]
#       -P convert_and_match.cmake: converts MODEL to OUTPUT, then expect_file_matches.cmake.
execute_process(COMMAND "${CONVERTER}" "${MODEL}" -o "${OUTPUT}" RESULT_VARIABLE rc ERROR_VARIABLE error)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "onnx2hpp failed on ${MODEL}: ${error}")
endif()
set(FILE "${OUTPUT}")
include(${CMAKE_CURRENT_LIST_DIR}/expect_file_matches.cmake)
