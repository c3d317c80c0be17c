# Script tests of `respgen import-json` (see CMakeLists.txt here). Run as
#   cmake -DMODE=<mode> -DRESPGEN=<respgen> -DSOURCE_DIR=<repo> -DWORK=<scratch dir> ... -P run.cmake
# from tests/import, so fixtures are named by paths relative to it, as the expected messages
# name them. A test that cannot run here prints "SKIPPED: <why>" (ctest's SKIP_REGULAR_EXPRESSION).

cmake_minimum_required(VERSION 3.18)

include("${CMAKE_CURRENT_LIST_DIR}/../support/script.cmake")

function(import source output)
  run_respgen(import-json "${source}" -o "${output}" ${ARGN})
  if(NOT rc EQUAL 0)
    fail("respgen import-json ${source} -o ${output} ${ARGN} failed (${rc}):\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

# Fails with a diff unless the two files are identical.
function(same_file expected actual hint)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${expected}" "${actual}"
                  RESULT_VARIABLE differ)
  if(differ)
    execute_process(COMMAND diff -u "${expected}" "${actual}" OUTPUT_VARIABLE d)
    string(SUBSTRING "${d}" 0 6000 d)
    fail("${actual} differs from ${expected}${hint}:\n${d}")
  endif()
endfunction()

# Generates C from spec into dir and compiles every unit with compiler cc.
function(compile_spec spec dir cc)
  find_program(compiler NAMES ${cc})
  if(NOT compiler)
    message("SKIPPED: ${cc} not found")
    return()
  endif()
  fresh_dir("${dir}")
  run_respgen(-o "${dir}" "${spec}")
  if(NOT rc EQUAL 0)
    fail("respgen -o ${dir} ${spec} failed (${rc}):\n${err}")
  endif()
  file(GLOB units "${dir}/*.c")
  foreach(unit ${units})
    string(TIMESTAMP t0 "%s")
    execute_process(COMMAND "${compiler}" ${STRICT} -I "${SOURCE_DIR}/runtime" -c "${unit}"
                            -o "${unit}.o"
                    RESULT_VARIABLE r ERROR_VARIABLE e)
    string(TIMESTAMP t1 "%s")
    if(NOT r EQUAL 0)
      string(SUBSTRING "${e}" 0 6000 e)
      fail("${cc} failed on ${unit}:\n${e}")
    endif()
    file(SIZE "${unit}.o" size)
    math(EXPR secs "${t1} - ${t0}")
    message("${cc}: ${unit}: ok (about ${secs} s, object file ${size} bytes)")
  endforeach()
endfunction()

if(MODE STREQUAL "golden")
  # The import of SOURCE equals GOLDEN byte for byte, its summary equals SUMMARY (with the
  # output path written as <out>), its warnings WARNINGS, and the spec generates C that compiles.
  fresh_dir("${WORK}")
  import("${SOURCE}" "${WORK}/out.lua")
  same_file("${GOLDEN}" "${WORK}/out.lua" " (after an intended change, refresh tests/import/golden: see its CMakeLists.txt)")
  string(REPLACE "${WORK}/out.lua" "<out>" out "${out}")
  file(WRITE "${WORK}/summary.txt" "${out}")
  same_file("${SUMMARY}" "${WORK}/summary.txt" "")
  file(WRITE "${WORK}/warnings.txt" "${err}")
  same_file("${WARNINGS}" "${WORK}/warnings.txt" "")
  # Importing twice gives the same bytes (no dependence on hash order).
  import("${SOURCE}" "${WORK}/again.lua")
  same_file("${WORK}/out.lua" "${WORK}/again.lua" "")
  compile_spec("${WORK}/out.lua" "${WORK}/c" gcc)

elseif(MODE STREQUAL "hostile")
  # SOURCE's names, tokens and texts hold comment closers, newlines, quotes, backslashes,
  # trigraphs and NUL (docs/security.md): the import declares exactly its commands, and the C
  # generated from it, server side included, compiles with gcc and clang under the strict flags
  # and defines no smuggled function.
  fresh_dir("${WORK}")
  import("${SOURCE}" "${WORK}/hostile.lua")
  file(STRINGS "${WORK}/hostile.lua" declared REGEX "^command ")
  if(NOT declared STREQUAL "command \"HX*/\" {")
    fail("the import declares [${declared}], not just HX*/")
  endif()
  foreach(cc gcc clang)
    find_program(compiler_${cc} NAMES ${cc})
    if(NOT compiler_${cc})
      message("${cc} not found: not compiled with it")
      continue()
    endif()
    fresh_dir("${WORK}/${cc}")
    run_respgen(--server -o "${WORK}/${cc}" "${WORK}/hostile.lua")
    if(NOT rc EQUAL 0)
      fail("respgen --server failed (${rc}):\n${err}")
    endif()
    file(GLOB units "${WORK}/${cc}/*.c")
    foreach(unit ${units})
      execute_process(COMMAND "${compiler_${cc}}" ${STRICT} -I "${SOURCE_DIR}/runtime" -c "${unit}"
                              -o "${unit}.o" RESULT_VARIABLE r ERROR_VARIABLE e)
      if(NOT r EQUAL 0)
        fail("${cc} failed on ${unit}:\n${e}")
      endif()
      execute_process(COMMAND nm "${unit}.o" OUTPUT_VARIABLE symbols)
      if(symbols MATCHES "smuggled")
        fail("${unit}.o defines a smuggled function:\n${symbols}")
      endif()
    endforeach()
  endforeach()

elseif(MODE STREQUAL "limits")
  # Contributors' JSON (docs/security.md): a 100 MB file and a 2 MB string are refused fast,
  # with file:line, exit status 1 and nothing written.
  fresh_dir("${WORK}")
  string(REPEAT "a" 1048576 mib)
  file(WRITE "${WORK}/big.json" "{\"X\": {\"summary\": \"")
  foreach(i RANGE 1 100)
    file(APPEND "${WORK}/big.json" "${mib}")
  endforeach()
  file(APPEND "${WORK}/big.json" "\"}}\n")
  file(WRITE "${WORK}/string.json" "{\"X\": {\"summary\": \"${mib}${mib}\"}}\n")
  set(want_big "big.json:1: the file is 104857623 bytes, over the limit of 16777216")
  set(want_string "string.json:1:19: $.X.summary: string longer than the limit of 1048576 bytes")
  foreach(case big string)
    string(TIMESTAMP t0 "%s")
    run_respgen(import-json "${WORK}/${case}.json" -o "${WORK}/${case}.lua")
    string(TIMESTAMP t1 "%s")
    math(EXPR took "${t1} - ${t0}")
    string(REPLACE "${WORK}/" "" err "${err}")
    string(FIND "${err}" "${want_${case}}\n" at)
    if(NOT rc EQUAL 1 OR NOT at EQUAL 0 OR EXISTS "${WORK}/${case}.lua")
      fail("${case}: exit status ${rc}, stderr:\n${err}expected 1 and:\n${want_${case}}")
    endif()
    if(took GREATER 5)
      fail("${case}: took ${took} s")
    endif()
  endforeach()
  file(REMOVE "${WORK}/big.json")

elseif(MODE STREQUAL "current")
  # specs/redis.lua is what importing ../shared/redis-commands gives today.
  set(source "${SOURCE_DIR}/../shared/redis-commands")
  if(NOT IS_DIRECTORY "${source}")
    message("SKIPPED: ${source} not found; specs/redis.lua cannot be checked against it")
    return()
  endif()
  fresh_dir("${WORK}")
  import("${source}" "${WORK}/redis.lua" --overlay "${SOURCE_DIR}/specs/overlays/redis.lua")
  same_file("${SOURCE_DIR}/specs/redis.lua" "${WORK}/redis.lua"
            " (specs/redis.lua is stale: run scripts/import-redis-specs.sh)")

elseif(MODE STREQUAL "module_current")
  # specs/modules/NAME.lua is what importing ../shared/module-commands/NAME gives today, with
  # exactly the warnings of golden/NAME.warnings (the source written as <source>).
  set(source "${SOURCE_DIR}/../shared/module-commands/${NAME}")
  if(NOT IS_DIRECTORY "${source}")
    message("SKIPPED: ${source} not found; specs/modules/${NAME}.lua cannot be checked against it")
    return()
  endif()
  fresh_dir("${WORK}")
  import("${source}" "${WORK}/${NAME}.lua")
  same_file("${SOURCE_DIR}/specs/modules/${NAME}.lua" "${WORK}/${NAME}.lua"
            " (specs/modules/${NAME}.lua is stale: run scripts/import-module-specs.sh)")
  string(REPLACE "${source}/" "<source>/" err "${err}")
  file(WRITE "${WORK}/warnings.txt" "${err}")
  same_file("${CMAKE_CURRENT_LIST_DIR}/golden/${NAME}.warnings" "${WORK}/warnings.txt"
            " (run scripts/import-module-specs.sh)")

elseif(MODE STREQUAL "compile")
  # The whole command set generates C that compiles without a warning.
  compile_spec("${SPEC}" "${WORK}" ${CC})

elseif(MODE STREQUAL "format")
  # The C generated from the whole command set is laid out as clang-format would lay it out,
  # with the default prefix and with a long one that makes more lines wrap.
  find_program(CLANG_FORMAT NAMES clang-format)
  if(NOT CLANG_FORMAT)
    message("SKIPPED: clang-format not found")
    return()
  endif()
  fresh_dir("${WORK}/plain")
  fresh_dir("${WORK}/long")
  fresh_dir("${WORK}/ho")
  foreach(args "-o;${WORK}/plain" "--prefix;a_rather_long_prefix_to_test_wrapping;-o;${WORK}/long"
          "--header-only;-o;${WORK}/ho")
    run_respgen(${args} "${SPEC}")
    if(NOT rc EQUAL 0)
      fail("respgen ${args} ${SPEC} failed (${rc}):\n${err}")
    endif()
  endforeach()
  file(GLOB files "${WORK}/plain/*" "${WORK}/long/*" "${WORK}/ho/*")
  execute_process(COMMAND "${CLANG_FORMAT}" --dry-run --Werror
                          "--style=file:${SOURCE_DIR}/.clang-format" ${files}
                  RESULT_VARIABLE r ERROR_VARIABLE e)
  if(NOT r EQUAL 0)
    string(SUBSTRING "${e}" 0 6000 e)
    fail("clang-format finds generated code it would change:\n${e}")
  endif()

elseif(MODE STREQUAL "bad")
  # Bad input: exit status 1, exactly the stderr of EXPECT, and the output file (which exists
  # beforehand) left as it was.
  # <work> in EXPECT stands for WORK. Two cases need more than a fixture: an empty directory
  # (git keeps none) and an output file in a directory that does not exist.
  file(READ "${EXPECT}" expect)
  string(REPLACE "<work>" "${WORK}" expect "${expect}")
  fresh_dir("${WORK}")
  set(OUTPUT "${WORK}/out.lua")
  file(WRITE "${OUTPUT}" "-- the previous spec\n")
  if(CASE STREQUAL "empty_dir")
    file(MAKE_DIRECTORY "${WORK}/empty")
    set(SOURCE "${WORK}/empty")
  elseif(CASE STREQUAL "unwritable_output")
    set(OUTPUT "${WORK}/no/such/dir/out.lua")
  endif()
  set(overlay "")
  if(OVERLAY)
    set(overlay --overlay "${OVERLAY}")
  endif()
  run_respgen(import-json "${SOURCE}" -o "${OUTPUT}" ${overlay})
  if(NOT rc EQUAL 1)
    fail("exit status ${rc}, expected 1; stderr:\n${err}")
  endif()
  if(NOT err STREQUAL expect)
    fail("stderr:\n${err}expected:\n${expect}")
  endif()
  if(NOT out STREQUAL "")
    fail("a failed import printed a summary:\n${out}")
  endif()
  if(EXISTS "${WORK}/out.lua")
    file(READ "${WORK}/out.lua" left)
    if(NOT left STREQUAL "-- the previous spec\n")
      fail("a failed import changed the output file")
    endif()
  endif()
  file(GLOB strays "${WORK}/*.tmp*")
  if(strays)
    fail("temporary files left behind: ${strays}")
  endif()

elseif(MODE STREQUAL "usage")
  # A bad command line: exit status 2 and a usage message; --help: 0 and the usage text.
  separate_arguments(args UNIX_COMMAND "${ARGS}")
  run_respgen(import-json ${args})
  if(NOT rc EQUAL "${WANT_RC}")
    fail("respgen import-json ${ARGS}: exit status ${rc}, expected ${WANT_RC}; stderr:\n${err}")
  endif()
  if(NOT "${out}${err}" MATCHES "${WANT}")
    fail("respgen import-json ${ARGS}: output does not match '${WANT}':\n${out}${err}")
  endif()

else()
  fail("unknown MODE '${MODE}'")
endif()
