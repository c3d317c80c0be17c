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

# A throwaway redis-server listening only on the unix socket <dir>/redis.sock (no TCP port, no
# persistence), its files in a new temporary directory (short: a socket path has at most 107
# bytes) whose path goes into the caller's variable dir_var. Fails unless it comes up within
# 10 s; stop it with redis_stop(<dir>) before anything else can fail, so it never outlives the test.
function(redis_start dir_var)
  find_program(RG_REDIS_SERVER redis-server)
  if(NOT RG_REDIS_SERVER)
    fail("redis-server not found (scripts/deps.sh installs it)")
  endif()
  execute_process(COMMAND mktemp -d /tmp/respgen-redis.XXXXXX OUTPUT_VARIABLE dir
                  OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE r)
  if(NOT r EQUAL 0 OR NOT IS_DIRECTORY "${dir}")
    fail("mktemp -d failed: ${r}")
  endif()
  execute_process(COMMAND "${RG_REDIS_SERVER}" --port 0 --unixsocket "${dir}/redis.sock"
                          --save "" --appendonly no --dir "${dir}" --logfile "${dir}/redis.log"
                          --pidfile "${dir}/redis.pid" --daemonize yes
                  RESULT_VARIABLE r)
  foreach(i RANGE 100)
    if(EXISTS "${dir}/redis.sock" AND EXISTS "${dir}/redis.pid")
      set(${dir_var} "${dir}" PARENT_SCOPE)
      return()
    endif()
    execute_process(COMMAND "${CMAKE_COMMAND}" -E sleep 0.1)
  endforeach()
  set(log "")
  if(EXISTS "${dir}/redis.log")
    file(READ "${dir}/redis.log" log LIMIT 4000)
  endif()
  redis_stop("${dir}")
  fail("redis-server (exit ${r}) did not come up:\n${log}")
endfunction()

# Stops the server of redis_start and removes its directory: SIGTERM, and SIGKILL when its
# socket is still there after 5 s (a stopping Redis removes it; the pid itself may linger as a
# zombie when nobody reaps daemons).
function(redis_stop dir)
  execute_process(COMMAND sh -c [[
    [ -f "$1/redis.pid" ] || exit 0
    pid=$(cat "$1/redis.pid")
    kill "$pid" 2>/dev/null || exit 0
    for _ in $(seq 50); do [ -S "$1/redis.sock" ] || exit 0; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  ]] sh "${dir}")
  file(REMOVE_RECURSE "${dir}")
endfunction()
