# cmake -DFILE=... -DPATTERN=... [-DABSENT=...] -P expect_file_matches.cmake: fails unless FILE
# exists and contains a match of the CMake regular expression PATTERN, and (with ABSENT) no
# match of ABSENT.
if(NOT EXISTS "${FILE}")
  message(FATAL_ERROR "${FILE} does not exist")
endif()
file(READ "${FILE}" text)
string(REGEX MATCH "${PATTERN}" found "${text}")
if(found STREQUAL "")
  message(FATAL_ERROR "${FILE} has no match of '${PATTERN}'")
endif()
message(STATUS "${FILE}: found '${found}'")
if(DEFINED ABSENT)
  string(REGEX MATCH "${ABSENT}" unwanted "${text}")
  if(NOT unwanted STREQUAL "")
    message(FATAL_ERROR "${FILE} has '${unwanted}', a match of '${ABSENT}'")
  endif()
endif()
