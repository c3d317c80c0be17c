# Script tests of respgen --server, run as
#   cmake -DMODE=golden|format|compile -DRESPGEN=<respgen> -DSPEC=<spec> -DWORK=<dir>
#         [-DGOLDEN=<dir>] [-DRUNTIME=<runtime dir>] [-DCC=<compiler>] -P golden.cmake
# Only the <stem>_server.* outputs are looked at: the other emitters have their own tests.
# A test that cannot run here prints "SKIPPED: <why>".
cmake_minimum_required(VERSION 3.18)

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
execute_process(COMMAND "${RESPGEN}" --server -o "${WORK}" "${SPEC}" RESULT_VARIABLE rc
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "respgen --server ${SPEC} failed (${rc}):\n${err}")
endif()
get_filename_component(stem "${SPEC}" NAME_WE)
set(files "${stem}_server.h" "${stem}_server.c")

if(MODE STREQUAL "golden")
  foreach(f ${files})
    execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${GOLDEN}/${f}" "${WORK}/${f}"
                    RESULT_VARIABLE same)
    if(NOT same EQUAL 0)
      execute_process(COMMAND diff -u "${GOLDEN}/${f}" "${WORK}/${f}" OUTPUT_VARIABLE d)
      message(FATAL_ERROR "${WORK}/${f} differs from ${GOLDEN}/${f} (refresh with "
                          "scripts/update-golden.sh):\n${d}")
    endif()
  endforeach()
elseif(MODE STREQUAL "format")
  find_program(CLANG_FORMAT clang-format)
  if(NOT CLANG_FORMAT)
    message("SKIPPED: clang-format not found")
    return()
  endif()
  foreach(f ${files})
    execute_process(COMMAND "${CLANG_FORMAT}" --dry-run --Werror "${WORK}/${f}"
                    WORKING_DIRECTORY "${WORK}" RESULT_VARIABLE r ERROR_VARIABLE e)
    if(NOT r EQUAL 0)
      message(FATAL_ERROR "${f} is not clang-format clean:\n${e}")
    endif()
  endforeach()
elseif(MODE STREQUAL "compile")
  find_program(COMPILER ${CC})
  if(NOT COMPILER)
    message("SKIPPED: ${CC} not found")
    return()
  endif()
  execute_process(COMMAND "${COMPILER}" -std=c11 -Wall -Wextra -Wpedantic -Werror -Wshadow
                          -Wstrict-prototypes -O2 -I "${RUNTIME}" -I "${WORK}" -c
                          "${WORK}/${stem}_server.c" -o "${WORK}/${stem}_server.o"
                  RESULT_VARIABLE r ERROR_VARIABLE e)
  if(NOT r EQUAL 0)
    message(FATAL_ERROR "${CC} rejects ${stem}_server.c:\n${e}")
  endif()
else()
  message(FATAL_ERROR "unknown MODE ${MODE}")
endif()
