# Runs COMMAND (a list: QEMU and its options, then the firmware) and fails unless its exit status
# is EXPECTED_STATUS and its output matches EXPECTED_OUTPUT.
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
message(STATUS "exit status ${status}, output:\n${out}${err}")
if(NOT status STREQUAL EXPECTED_STATUS)
  message(FATAL_ERROR "expected exit status ${EXPECTED_STATUS}, got ${status}")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECTED_OUTPUT}")
  message(FATAL_ERROR "output does not match '${EXPECTED_OUTPUT}'")
endif()
