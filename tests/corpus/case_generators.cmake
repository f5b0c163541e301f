# tessera_generate_cases: one configure-time case generator of tools/onnx2hpp/testing and the
# golden cases it writes.
#
#   tessera_generate_cases(<name> SCRIPT <generator.py> [ARGS <arg>...] [DEPENDS <file>...]
#                          WHAT <text> [CASES_IN <subdirectory>|.] [GROUPED] [FLAT_ONLY]
#                          [STDOUT <file>] [BROKEN_MODELS_TEST <test>] [TEST <test> <command>...])
#
# Runs `/usr/bin/python3 <generator.py> <arg>... <dir>` with dir = <binary dir>/<name> through
# run_case_generator.py, which keeps the time stamp of every file rewritten with the same bytes
# (so that a reconfigure rebuilds nothing), and reruns CMake when the generator or a DEPENDS file
# changes. When the generator fails: a warning "could not <WHAT>" with its error output, and
# nothing more. Otherwise:
# - CASES_IN: each directory under <dir>/<subdirectory> (`.`: <dir> itself) that holds a
#   network.onnx is the golden case "<name>/<case>", appended to golden_cases as
#   "<test name>|<case dir>|<tolerance>[|<group>]", the tolerance read from the case's
#   `tolerance` file (0 without one);
# - GROUPED: the samples of one model (<model>_sample<k>) form the group "<name>/<model>" (one
#   compiled network); FLAT_ONLY also appends those groups to flat_only_groups;
# - STDOUT: the generator's standard output is written to <dir>/<file> (when it changed);
# - BROKEN_MODELS_TEST: when <dir>/broken/expected.txt exists, the test that onnx2hpp rejects
#   each model of <dir>/broken with the expected message (check_broken_models.sh);
# - TEST: one more test, run after the generator succeeded (its own check, say).
# Sets <name>_dir and <name>_generated (whether the generator succeeded) in the caller's scope.
function(tessera_generate_cases name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "GROUPED;FLAT_ONLY" "SCRIPT;WHAT;CASES_IN;STDOUT;BROKEN_MODELS_TEST"
                        "ARGS;DEPENDS;TEST")
  set(testing ${PROJECT_SOURCE_DIR}/tools/onnx2hpp/testing)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/${name})
  set(${name}_dir ${dir} PARENT_SCOPE)
  set(${name}_generated FALSE PARENT_SCOPE)
  if(arg_STDOUT)
    set(output OUTPUT_VARIABLE stdout)
  else()
    set(output OUTPUT_QUIET)
  endif()
  execute_process(COMMAND /usr/bin/python3 ${testing}/run_case_generator.py ${dir}
                          /usr/bin/python3 ${arg_SCRIPT} ${arg_ARGS} ${dir}
                  RESULT_VARIABLE rc ${output} ERROR_VARIABLE error)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
               ${testing}/run_case_generator.py ${arg_SCRIPT} ${arg_DEPENDS})
  if(NOT rc EQUAL 0)
    message(WARNING "tessera: /usr/bin/python3 could not ${arg_WHAT}: ${error}")
    return()
  endif()
  set(${name}_generated TRUE PARENT_SCOPE)
  if(arg_STDOUT)
    set(previous "")
    if(EXISTS ${dir}/${arg_STDOUT})
      file(READ ${dir}/${arg_STDOUT} previous)
    endif()
    if(NOT previous STREQUAL stdout)
      file(WRITE ${dir}/${arg_STDOUT} "${stdout}")
    endif()
  endif()

  if(DEFINED arg_CASES_IN)
    set(cases_dir ${dir})
    if(NOT arg_CASES_IN STREQUAL ".")
      set(cases_dir ${dir}/${arg_CASES_IN})
    endif()
    file(GLOB cases LIST_DIRECTORIES true RELATIVE ${cases_dir} ${cases_dir}/*)
    foreach(case IN LISTS cases)
      set(case_dir ${cases_dir}/${case})
      if(NOT EXISTS ${case_dir}/network.onnx)
        continue()
      endif()
      set(tolerance 0)
      if(EXISTS ${case_dir}/tolerance)
        file(STRINGS ${case_dir}/tolerance tolerance LIMIT_COUNT 1)
      endif()
      set(entry "${name}/${case}|${case_dir}|${tolerance}")
      if(arg_GROUPED)
        string(REGEX REPLACE "_sample[0-9]+$" "" model "${case}")
        string(APPEND entry "|${name}/${model}")
        if(arg_FLAT_ONLY)
          list(APPEND flat_only_groups "${name}/${model}")
        endif()
      endif()
      list(APPEND golden_cases "${entry}")
    endforeach()
    set(golden_cases "${golden_cases}" PARENT_SCOPE)
    set(flat_only_groups "${flat_only_groups}" PARENT_SCOPE)
  endif()

  if(arg_BROKEN_MODELS_TEST AND EXISTS ${dir}/broken/expected.txt)
    add_test(NAME ${arg_BROKEN_MODELS_TEST}
             COMMAND ${testing}/check_broken_models.sh $<TARGET_FILE:onnx2hpp> ${dir}/broken)
  endif()
  if(arg_TEST)
    list(POP_FRONT arg_TEST test_name)
    add_test(NAME ${test_name} COMMAND ${arg_TEST})
  endif()
endfunction()
