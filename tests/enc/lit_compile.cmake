# RG_LIT accepts string literals only: compiles tests/enc/compile/lit_misuse.c with CC once per
# case (-fsyntax-only, -std=c11 -Wall -Wextra -Wpedantic -Werror). The literal case must compile,
# so the failures of the others come from RG_LIT and not from the file or the flags.
#   cmake -DCC=... -DRUNTIME=<runtime dir> -DSOURCE=<lit_misuse.c> -P lit_compile.cmake
set(flags -std=c11 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I${RUNTIME})

function(compile_case case out_rc out_log)
  execute_process(COMMAND ${CC} ${flags} -D${case} ${SOURCE} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(${out_rc} ${rc} PARENT_SCOPE)
  set(${out_log} "${out}${err}" PARENT_SCOPE)
endfunction()

compile_case(CASE_LITERAL rc log)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "RG_LIT of string literals does not compile:\n${log}")
endif()
# The line of the first occurrence of text in SOURCE.
file(STRINGS ${SOURCE} lines)
function(line_of text out)
  set(n 0)
  foreach(line IN LISTS lines)
    math(EXPR n "${n} + 1")
    string(FIND "${line}" "${text}" at)
    if(at GREATER -1)
      set(${out} ${n} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "no '${text}' in ${SOURCE}")
endfunction()

foreach(pair "CASE_POINTER:RG_LIT(k)" "CASE_ARRAY:RG_LIT(buf)" "CASE_CONST_ARRAY:RG_LIT(name)")
  string(REPLACE ":" ";" pair "${pair}")
  list(GET pair 0 case)
  list(GET pair 1 use)
  line_of("${use}" line)
  compile_case(${case} rc log)
  if(rc EQUAL 0)
    message(FATAL_ERROR "${case}: ${use} compiled; RG_LIT must refuse a non-literal")
  endif()
  # The error is at the misuse, not somewhere else in the file.
  if(NOT log MATCHES "lit_misuse\\.c:${line}:")
    message(FATAL_ERROR "${case}: no error at lit_misuse.c:${line} (${use}):\n${log}")
  endif()
  message(STATUS "${case}: ${use} refused at line ${line}")
endforeach()
