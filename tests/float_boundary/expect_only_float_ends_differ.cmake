# cmake -DCONVERTER=onnx2hpp -DMODEL=m.onnx -DWITH=converted_with_float_boundary.hpp -DOUTPUT=plain.hpp -P ...
# Converts MODEL without --float-boundary into OUTPUT and fails unless OUTPUT holds no float_ends
# and equals WITH once WITH's float_ends block is cut out: the option adds that block and
# changes nothing else, and the default header is the one from before the option existed.
execute_process(COMMAND ${CONVERTER} ${MODEL} -o ${OUTPUT} --namespace add_mixed RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${CONVERTER} ${MODEL} failed (${rc})")
endif()
file(READ "${OUTPUT}" plain)
file(READ "${WITH}" with)
string(FIND "${plain}" "float_ends" at)
if(NOT at EQUAL -1)
  message(FATAL_ERROR "${OUTPUT} (no --float-boundary) mentions float_ends")
endif()
string(FIND "${with}" "// The float ends, quantized" begin)
if(begin EQUAL -1)
  message(FATAL_ERROR "${WITH} has no float_ends block")
endif()
string(SUBSTRING "${with}" ${begin} -1 tail)
string(FIND "${tail}" "}}};\n\n" length)
math(EXPR length "${length} + 6")  # through "}}};\n\n"
string(SUBSTRING "${tail}" 0 ${length} block)
string(REPLACE "${block}" "" cut "${with}")
if(NOT cut STREQUAL plain)
  message(FATAL_ERROR "${WITH} without its float_ends block differs from ${OUTPUT}")
endif()
message(STATUS "the float_ends block (${length} bytes) is the only difference")
