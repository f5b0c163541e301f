# cmake -DCONVERTER=... -DMODEL=... -DEXPECTED=<regex> -DOUTPUT=... [-DEXTRA_ARGS=a|b|c] -P expect_conversion_error.cmake
# Passes when onnx2hpp fails the documented way: exit status exactly 1 (not 0, not another
# status, not a crash: execute_process reports a signal as a text such as "Segmentation
# fault" or "Subprocess aborted"), its message matches EXPECTED, and neither OUTPUT nor a
# temporary file of it (.<name>.XXXXXX next to it) exists afterwards.
file(REMOVE "${OUTPUT}")
string(REPLACE "|" ";" EXTRA_ARGS "${EXTRA_ARGS}")
execute_process(COMMAND ${CONVERTER} ${MODEL} -o ${OUTPUT} ${EXTRA_ARGS}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if("${rc}" STREQUAL "0")
  message(FATAL_ERROR "onnx2hpp accepted ${MODEL}; expected an error matching '${EXPECTED}'")
endif()
if(NOT "${rc}" STREQUAL "1")
  message(FATAL_ERROR "onnx2hpp ended with '${rc}' on ${MODEL}, not its error status 1 (a crash?):\n${err}")
endif()
if(NOT "${err}" MATCHES "^onnx2hpp: error: ")
  message(FATAL_ERROR "onnx2hpp failed on ${MODEL} without its 'onnx2hpp: error: ' line:\n${err}")
endif()
if(NOT "${err}" MATCHES "${EXPECTED}")
  message(FATAL_ERROR "onnx2hpp failed on ${MODEL} but its message does not match '${EXPECTED}':\n${err}")
endif()
if(EXISTS "${OUTPUT}")
  message(FATAL_ERROR "onnx2hpp failed but left a partial header at ${OUTPUT}")
endif()
get_filename_component(output_dir "${OUTPUT}" DIRECTORY)
get_filename_component(output_name "${OUTPUT}" NAME)
file(GLOB leftovers "${output_dir}/.${output_name}.*" "${OUTPUT}.tmp")
if(leftovers)
  message(FATAL_ERROR "onnx2hpp failed but left temporary files: ${leftovers}")
endif()
message(STATUS "onnx2hpp failed as expected: ${err}")
