# respgen_generate(TARGET <target> SPECS <spec.lua>... [PREFIX <prefix>] [OUT_DIR <dir>]
#                  [HEADER_ONLY] [SERVER] [CLIENT] [IOV] [FAST_OPTIONS] [COMMANDS <name>...]
#                  [DEPENDS <file>...])
#
# Generates C codecs from respgen specs at build time and adds them to <target>:
# - a SPECS entry without a directory or an extension names a spec bundled with respgen:
#   `redis` (the whole Redis command set, ${RESPGEN_REDIS_SPEC}) or `example`; other entries are
#   files, relative ones taken from the current source directory;
# - one <stem>.h and <stem>.c per spec (only <stem>.h with HEADER_ONLY) in OUT_DIR, by default
#   ${CMAKE_CURRENT_BINARY_DIR}/respgen/<target>; only these outputs are marked GENERATED;
# - always also <stem>_reply.h and <stem>_reply.c (only the header with HEADER_ONLY): the typed
#   reply decoders (docs/typed-replies.md);
# - always also <stem>_keys.h and <stem>_keys.c (only the header with HEADER_ONLY): the key spec
#   tables and cluster routing functions (docs/cluster.md);
# - with SERVER also <stem>_server.h and <stem>_server.c (respgen --server: request dispatch and
#   typed arguments, docs/server.md);
# - with CLIENT also <stem>_client.h and <stem>_client.c (only the header with HEADER_ONLY):
#   per command a call queued on a connection engine (respgen --client, docs/client.md);
# - with IOV also the iovec functions (respgen --iov: _iov_count, _scratch_size, _encode_iov);
#   NO_IOV, once needed to leave them out, is the default and still accepted;
# - with FAST_OPTIONS requests with options as compiled general paths instead of option words
#   and op tables (respgen --fast-options; docs/spec-language.md);
# - with COMMANDS only those commands (respgen --commands: "CLIENT INFO" a subcommand, a
#   container's name all its subcommands; a name in none of the specs fails the build);
# - the outputs are regenerated when a spec, a DEPENDS file (list the specs that SPECS include:
#   respgen reads them, CMake cannot see them) or the respgen executable changes;
# - OUT_DIR joins <target>'s include path (PUBLIC) and respgen::runtime its link libraries.
# Call it as often as needed, for one target or several; each call needs its own OUT_DIR when
# two calls would generate the same file name.
function(respgen_generate)
  cmake_parse_arguments(RG "HEADER_ONLY;SERVER;CLIENT;IOV;NO_IOV;FAST_OPTIONS" "TARGET;PREFIX;OUT_DIR"
                        "SPECS;COMMANDS;DEPENDS" ${ARGN})
  if(NOT RG_TARGET OR NOT RG_SPECS)
    message(FATAL_ERROR "respgen_generate: TARGET and SPECS are required")
  endif()
  if(RG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "respgen_generate: unknown arguments: ${RG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET respgen::respgen)
    message(FATAL_ERROR "respgen_generate: no respgen::respgen executable target; "
                        "add_subdirectory(respgen) or find_package(respgen) first")
  endif()
  if(NOT RG_OUT_DIR)
    set(RG_OUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/respgen/${RG_TARGET}")
  endif()

  set(options -o "${RG_OUT_DIR}")
  if(RG_PREFIX)
    list(APPEND options --prefix "${RG_PREFIX}")
  endif()
  if(RG_HEADER_ONLY)
    list(APPEND options --header-only)
  endif()
  if(RG_SERVER)
    list(APPEND options --server)
  endif()
  if(RG_CLIENT)
    list(APPEND options --client)
  endif()
  if(RG_FAST_OPTIONS)
    list(APPEND options --fast-options)
  endif()
  if(RG_IOV AND NOT RG_NO_IOV)
    list(APPEND options --iov)
  endif()
  if(RG_COMMANDS)
    string(REPLACE ";" "," commands "${RG_COMMANDS}")
    list(APPEND options "--commands=${commands}")
  endif()

  set(all_outputs "")
  set(all_specs "")
  foreach(spec IN LISTS RG_SPECS)
    if(NOT spec MATCHES "[./\\]")
      _respgen_bundled_spec("${spec}" spec)
    endif()
    get_filename_component(spec_abs "${spec}" ABSOLUTE)
    get_filename_component(stem "${spec}" NAME_WE)
    set(outputs "${RG_OUT_DIR}/${stem}.h" "${RG_OUT_DIR}/${stem}_reply.h"
        "${RG_OUT_DIR}/${stem}_keys.h")
    if(NOT RG_HEADER_ONLY)
      list(APPEND outputs "${RG_OUT_DIR}/${stem}.c" "${RG_OUT_DIR}/${stem}_reply.c"
           "${RG_OUT_DIR}/${stem}_keys.c")
    endif()
    if(RG_SERVER AND NOT RG_HEADER_ONLY)
      list(APPEND outputs "${RG_OUT_DIR}/${stem}_server.h" "${RG_OUT_DIR}/${stem}_server.c")
    endif()
    if(RG_CLIENT)
      list(APPEND outputs "${RG_OUT_DIR}/${stem}_client.h")
      if(NOT RG_HEADER_ONLY)
        list(APPEND outputs "${RG_OUT_DIR}/${stem}_client.c")
      endif()
    endif()
    if(NOT RG_COMMANDS)
      add_custom_command(
        OUTPUT ${outputs}
        COMMAND "${CMAKE_COMMAND}" -E make_directory "${RG_OUT_DIR}"
        COMMAND respgen::respgen ${options} "${spec_abs}"
        DEPENDS "${spec_abs}" ${RG_DEPENDS} respgen::respgen $<TARGET_FILE:respgen::respgen>
        COMMENT "respgen: generating ${stem} codec from ${spec}"
        VERBATIM)
    endif()
    list(APPEND all_outputs ${outputs})
    list(APPEND all_specs "${spec_abs}")
  endforeach()
  # A subset is chosen over all the specs at once: a name must be in one of them.
  if(RG_COMMANDS)
    list(JOIN all_specs " " spec_list)
    add_custom_command(
      OUTPUT ${all_outputs}
      COMMAND "${CMAKE_COMMAND}" -E make_directory "${RG_OUT_DIR}"
      COMMAND respgen::respgen ${options} ${all_specs}
      DEPENDS ${all_specs} ${RG_DEPENDS} respgen::respgen $<TARGET_FILE:respgen::respgen>
      COMMENT "respgen: generating the chosen commands of ${spec_list}"
      VERBATIM)
  endif()

  set_source_files_properties(${all_outputs} PROPERTIES GENERATED TRUE)
  target_sources(${RG_TARGET} PRIVATE ${all_outputs})
  target_include_directories(${RG_TARGET} PUBLIC "${RG_OUT_DIR}")
  target_link_libraries(${RG_TARGET} PUBLIC respgen::runtime)
endfunction()

# Where the bundled specs are: whoever includes this file (respgen's CMakeLists.txt, the package
# config) sets RESPGEN_SPEC_DIR first. A global property, as add_subdirectory scopes variables.
if(DEFINED RESPGEN_SPEC_DIR)
  set_property(GLOBAL PROPERTY RESPGEN_SPEC_DIR "${RESPGEN_SPEC_DIR}")
endif()

# The path of the bundled spec called name (redis, example) into out; a fatal error naming the
# bundled ones when there is none of that name.
function(_respgen_bundled_spec name out)
  get_property(dir GLOBAL PROPERTY RESPGEN_SPEC_DIR)
  if(dir AND EXISTS "${dir}/${name}.lua")
    set(${out} "${dir}/${name}.lua" PARENT_SCOPE)
    return()
  endif()
  set(bundled "none known: RESPGEN_SPEC_DIR was not set")
  if(dir)
    file(GLOB bundled RELATIVE "${dir}" "${dir}/*.lua")
  endif()
  string(REPLACE ".lua" "" bundled "${bundled}")
  string(REPLACE ";" ", " bundled "${bundled}")
  message(FATAL_ERROR "respgen_generate: SPECS ${name}: no bundled spec of that name (bundled: "
                      "${bundled}); a spec file of yours is named with its .lua")
endfunction()
