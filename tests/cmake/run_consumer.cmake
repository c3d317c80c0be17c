# Builds and runs examples/consumer against respgen, as a user would.
#   -DMODE=subdir   add_subdirectory of the source tree SRC
#   -DMODE=install  cmake --install of the build tree BUILD into a prefix, then find_package
# WORK is a scratch directory, emptied first.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
endfunction()

if(MODE STREQUAL "subdir")
  set(configure_args "-DRESPGEN_SOURCE_DIR=${SRC}")
elseif(MODE STREQUAL "install")
  run("${CMAKE_COMMAND}" --install "${BUILD}" --prefix "${WORK}/prefix")
  set(configure_args "-DCMAKE_PREFIX_PATH=${WORK}/prefix")
else()
  message(FATAL_ERROR "MODE must be subdir or install")
endif()

run("${CMAKE_COMMAND}" -S "${SRC}/examples/consumer" -B "${WORK}/build" ${configure_args}
    -DCMAKE_BUILD_TYPE=Release "-DCMAKE_C_FLAGS=-Wall -Wextra -Wpedantic -Werror")
run("${CMAKE_COMMAND}" --build "${WORK}/build" -j2)
run("${WORK}/build/consumer")
message(STATUS "consumer (${MODE}) built and ran")
