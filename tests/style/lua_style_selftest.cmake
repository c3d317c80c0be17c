# scripts/lua-style.sh must fail on bad_style.lua and name each problem planted in it.
# -DROOT=<source dir> -DBAD=<bad_style.lua>
execute_process(COMMAND bash ${ROOT}/scripts/lua-style.sh ${BAD}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "lua-style.sh passed a file with planted problems:\n${out}${err}")
endif()
get_filename_component(name ${BAD} NAME)
foreach(want
    ":5: indented 2, expected 4"
    ":8: tab"
    ":9: trailing whitespace"
    ":10: longer than 100 characters"
    ":13: indented 6, not a multiple of 4")
  string(FIND "${out}" "${name}${want}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "lua-style.sh did not report '${name}${want}'; it said:\n${out}${err}")
  endif()
endforeach()
string(REGEX MATCHALL "\n" lines "${out}")
list(LENGTH lines n)
if(NOT n EQUAL 5)
  message(FATAL_ERROR "expected exactly the 5 planted problems, got ${n}:\n${out}")
endif()
