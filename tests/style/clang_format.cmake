# clang-format --dry-run -Werror over respgen's hand-written C. -DROOT=<source dir>.
#
# The files are the C sources and headers git tracks (runtime, adapters, gen, tests, bench,
# examples: wherever they live), less the generated goldens, which gen_golden_* pin to respgen's
# output and gen_clang_format / server_format_* check. Untracked files (a build or an example's
# gen/ inside the tree) are not hand-written and stay out. Without git (a source archive) the
# same directories are globbed.
find_program(CLANG_FORMAT NAMES clang-format clang-format-14)
if(NOT CLANG_FORMAT)
  message("SKIPPED: no clang-format")
  return()
endif()
set(GENERATED "^(tests/gen/golden|tests/server/golden)/")

find_program(GIT git)
set(files "")
if(GIT AND EXISTS "${ROOT}/.git")
  execute_process(COMMAND "${GIT}" -C "${ROOT}" ls-files -- "*.c" "*.h"
                  OUTPUT_VARIABLE out RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "git ls-files failed in ${ROOT}:\n${err}")
  endif()
  string(REGEX REPLACE "\n$" "" out "${out}")
  string(REPLACE "\n" ";" tracked "${out}")
  foreach(f IN LISTS tracked)
    if(NOT f MATCHES "${GENERATED}")
      list(APPEND files "${ROOT}/${f}")
    endif()
  endforeach()
  set(how "tracked")
else()
  foreach(dir runtime gen tests bench examples adapters)
    file(GLOB_RECURSE found LIST_DIRECTORIES false RELATIVE "${ROOT}" "${ROOT}/${dir}/*.c"
         "${ROOT}/${dir}/*.h")
    foreach(f IN LISTS found)
      if(NOT f MATCHES "${GENERATED}")
        list(APPEND files "${ROOT}/${f}")
      endif()
    endforeach()
  endforeach()
  set(how "globbed (no git checkout)")
endif()

list(LENGTH files count)
if(count LESS 50)
  message(FATAL_ERROR "found only ${count} C files under ${ROOT}: wrong ROOT?")
endif()
list(SORT files)
execute_process(COMMAND ${CLANG_FORMAT} --style=file --dry-run -Werror ${files}
                WORKING_DIRECTORY ${ROOT} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${err}\nnot clang-format clean (fix: clang-format -i FILE)")
endif()
message("${count} hand-written C files (${how}) clang-format clean")
