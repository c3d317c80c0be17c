# Every runtime/*.c and adapters/*.c source compiled alone, the way a user's build compiles them
# when it takes the sources into its own project: plain `cc FLAGS -c file.c`, with none of the
# project's definitions (_GNU_SOURCE) or flags, warnings as errors. gcc 12 warned at -O2 where
# the project's own build did not (runtime/rg_out.c, -Warray-bounds), and the adapters did not
# compile under -std=c11 without the build's _GNU_SOURCE.
# -DROOT=<source dir> -DCC=<compiler> -DFLAGS=<flags, as on a command line> -DWORK=<scratch dir>
# -DWITH_UV=<0|1> (rg_uv.c needs uv.h), -DWITH_TLS=<0|1> (rg_tls.c needs OpenSSL's headers)
find_program(compiler "${CC}")
if(NOT compiler)
  message("SKIPPED: ${CC} not found")
  return()
endif()
separate_arguments(FLAGS UNIX_COMMAND "${FLAGS}")
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
file(GLOB sources "${ROOT}/runtime/*.c" "${ROOT}/adapters/*.c")
list(SORT sources)
set(failed "")
foreach(src ${sources})
  get_filename_component(name "${src}" NAME_WE)
  if(name MATCHES "^rg_(.*_)?uv$" AND NOT WITH_UV) # rg_uv, rg_cluster_uv, rg_sentinel_uv
    continue()
  endif()
  if(name STREQUAL "rg_tls" AND NOT WITH_TLS)
    continue()
  endif()
  execute_process(COMMAND "${compiler}" ${FLAGS} -Wall -Wextra -Werror -I${ROOT}/runtime
                          -I${ROOT}/adapters -c "${src}" -o "${WORK}/${name}.o"
                  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0)
    string(APPEND failed "${CC} ${FLAGS} -Wall -Wextra -Werror -c ${src}:\n${err}\n")
  endif()
endforeach()
if(failed)
  message(FATAL_ERROR "${failed}")
endif()
