# tessera_add_model(<target> MODEL <file.onnx> [NAME <namespace>] [OUTPUT <header>]
#                   [OPTIONS <onnx2hpp options>...])
#
# Runs onnx2hpp at build time (re-run when the model or the converter changes) and adds the
# generated header's directory to <target>'s include path, so that the target can
# `#include "<namespace>.hpp"`. Works in the build tree (target onnx2hpp) and installed
# (imported target tessera::onnx2hpp).
function(tessera_add_model target)
  cmake_parse_arguments(arg "" "MODEL;NAME;OUTPUT" "OPTIONS" ${ARGN})
  if(NOT arg_MODEL)
    message(FATAL_ERROR "tessera_add_model: MODEL is required")
  endif()
  get_filename_component(model "${arg_MODEL}" ABSOLUTE)
  if(NOT arg_NAME)
    get_filename_component(arg_NAME "${model}" NAME_WE)
  endif()
  if(NOT arg_OUTPUT)
    set(arg_OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/tessera_models/${arg_NAME}.hpp")
  endif()
  if(TARGET onnx2hpp)
    set(converter onnx2hpp)
  else()
    set(converter tessera::onnx2hpp)
  endif()
  get_filename_component(out_dir "${arg_OUTPUT}" DIRECTORY)
  add_custom_command(
    OUTPUT "${arg_OUTPUT}"
    COMMAND ${CMAKE_COMMAND} -E make_directory "${out_dir}"
    COMMAND ${converter} "${model}" -o "${arg_OUTPUT}" --namespace ${arg_NAME} ${arg_OPTIONS}
    DEPENDS "${model}" ${converter}
    COMMENT "onnx2hpp ${arg_NAME}"
    VERBATIM)
  add_custom_target(${target}_${arg_NAME}_header DEPENDS "${arg_OUTPUT}")
  add_dependencies(${target} ${target}_${arg_NAME}_header)
  target_include_directories(${target} PRIVATE "${out_dir}")
  target_sources(${target} PRIVATE "${arg_OUTPUT}")
endfunction()
