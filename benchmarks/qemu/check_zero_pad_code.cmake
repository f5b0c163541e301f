# Fails unless firmware ELF instantiates its convolution kernels for padding that reads no pad
# value only (ReadsPadValue = false, kernels/concepts.hpp). Run on the DS-CNN firmware, whose
# padding is 0 everywhere: the kernels' zero-point padding paths (about 1-2 kB per family) must
# not be in it. At least one flagged kernel must be found, so that a renamed kernel or a lost
# flag cannot pass unnoticed.
#   cmake -DNM=<nm> -DELF=<firmware.elf> -P check_zero_pad_code.cmake
execute_process(COMMAND ${NM} -C ${ELF} OUTPUT_VARIABLE symbols RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${ELF}:\n${err}")
endif()
set(kernel "(conv2d_im2col|conv2d_direct|depthwise_hwc|depthwise_chw)")
string(REGEX MATCHALL "${kernel}<false" zero_padded "${symbols}")
string(REGEX MATCHALL "[^\n]*${kernel}<true[^\n]*" pad_value "${symbols}")
list(LENGTH zero_padded found)
if(found EQUAL 0)
  message(FATAL_ERROR "no convolution kernel instantiated with ReadsPadValue = false in ${ELF}")
endif()
if(pad_value)
  list(JOIN pad_value "\n" lines)
  message(FATAL_ERROR "a network padded with 0 carries the pad-value kernel code:\n${lines}")
endif()
message(STATUS "${found} zero-padding kernel symbols, none with a pad value")
