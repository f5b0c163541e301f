# cmake -DCONVERTER=... -DMODEL=... -DEXPECTED=<regex> -DOUTPUT=... -P expect_conversion_error.cmake
# Passes when onnx2hpp fails (non-zero exit), its message matches EXPECTED and OUTPUT does not exist.
file(REMOVE "${OUTPUT}")
string(REPLACE "|" ";" EXTRA_ARGS "${EXTRA_ARGS}")
execute_process(COMMAND ${CONVERTER} ${MODEL} -o ${OUTPUT} ${EXTRA_ARGS}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "onnx2hpp accepted ${MODEL}; expected an error matching '${EXPECTED}'")
endif()
if(NOT "${err}" MATCHES "${EXPECTED}")
  message(FATAL_ERROR "onnx2hpp failed on ${MODEL} but its message does not match '${EXPECTED}':\n${err}")
endif()
if(EXISTS "${OUTPUT}")
  message(FATAL_ERROR "onnx2hpp failed but left a partial header at ${OUTPUT}")
endif()
message(STATUS "onnx2hpp failed as expected: ${err}")
