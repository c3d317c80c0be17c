# Helpers shared by the CMake-script tests (tests/gen/run.cmake, tests/import/run.cmake).
# They expect RESPGEN (the respgen binary) to be set by the caller's -D options.

# Flags every generated file must compile under.
set(STRICT -std=c11 -Wall -Wextra -Wpedantic -Werror -Wshadow -Wstrict-prototypes -O2)

function(fail msg)
  message(FATAL_ERROR "${msg}")
endfunction()

function(fresh_dir dir)
  file(REMOVE_RECURSE "${dir}")
  file(MAKE_DIRECTORY "${dir}")
endfunction()

# respgen ARGS... into the variables rc, out, err of the caller.
function(run_respgen)
  execute_process(COMMAND "${RESPGEN}" ${ARGN} RESULT_VARIABLE r OUTPUT_VARIABLE o
                  ERROR_VARIABLE e)
  set(rc "${r}" PARENT_SCOPE)
  set(out "${o}" PARENT_SCOPE)
  set(err "${e}" PARENT_SCOPE)
endfunction()
