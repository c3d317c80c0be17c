# `cmake --install` lays out the tool, the runtime and its headers, the bundled specs, a package
# config so that consumers write find_package(respgen) and call respgen_generate(), and a
# pkg-config file for everyone else.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(RG_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/respgen")
set(RG_SPEC_DIR "${CMAKE_INSTALL_DATADIR}/respgen/specs")
set(RG_PC_DIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
install(TARGETS respgen EXPORT respgenTargets RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
# The libraries are of the build's one kind (BUILD_SHARED_LIBS): lib*.a, or lib*.so.<ABI> with
# its links. The package files below serve either: every dependency is public (the headers
# include rg_conn.h, rg_blocking.h, uv.h), none private that only the static kind would need (the
# runtime needs only libc). One added PRIVATE goes to the export by itself, and to the .pc's
# Libs.private / Requires.private by hand.
set(RG_LIB_DESTINATIONS ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
                        LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}")
install(TARGETS respgen_runtime EXPORT respgenTargets ${RG_LIB_DESTINATIONS})
# The tool links the shared runtime too: found beside it, wherever the installed tree is moved.
if(BUILD_SHARED_LIBS)
  file(RELATIVE_PATH RG_BIN_TO_LIB "/prefix/${CMAKE_INSTALL_BINDIR}"
       "/prefix/${CMAKE_INSTALL_LIBDIR}")
  set_target_properties(respgen PROPERTIES INSTALL_RPATH "$ORIGIN/${RG_BIN_TO_LIB}")
endif()
install(FILES runtime/rg.h runtime/rg_dec.h runtime/rg_enc.h runtime/rg_keys.h runtime/rg_req.h runtime/rg_out.h
              runtime/rg_args.h runtime/rg_reply.h runtime/rg_push.h runtime/rg_cmd.h runtime/rg_conn.h runtime/rg_cache.h runtime/rg_cluster.h runtime/rg_cc.h runtime/rg_backoff.h
              runtime/rg_sentinel.h
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/respgen")
# The client adapters (docs/client.md): respgen::blocking, respgen::cluster_client,
# respgen::sentinel_client, respgen::tls
# when OpenSSL was found (blocking and uv link it; the package config then looks OpenSSL up
# again), and respgen::uv, cluster_uv and sentinel_uv when libuv was found (the package config
# then looks libuv up again).
set(RG_ADAPTERS blocking cluster_client sentinel_client)
if(TARGET respgen_tls)
  list(APPEND RG_ADAPTERS tls)
  set(RG_INSTALL_TLS ON)
else()
  set(RG_INSTALL_TLS OFF)
endif()
if(TARGET respgen_uv)
  list(APPEND RG_ADAPTERS uv cluster_uv sentinel_uv)
  set(RG_INSTALL_UV ON)
else()
  set(RG_INSTALL_UV OFF)
endif()
foreach(a IN LISTS RG_ADAPTERS)
  # An adapter finds the respgen libraries it needs beside itself (respgen_blocking needs
  # respgen_tls, which a program that calls no TLS function may not load by itself).
  if(BUILD_SHARED_LIBS)
    set_target_properties(respgen_${a} PROPERTIES INSTALL_RPATH "$ORIGIN")
  endif()
  install(TARGETS respgen_${a} EXPORT respgenTargets ${RG_LIB_DESTINATIONS})
  install(FILES adapters/rg_${a}.h DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/respgen")
endforeach()
install(EXPORT respgenTargets NAMESPACE respgen:: DESTINATION "${RG_CMAKE_DIR}")
# Not API, but rg_dec.h includes it: rg_feed_inline is compiled into its callers.
install(FILES runtime/rg_dec_inline.h DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/respgen")
# The bundled specs, laid out as in the source tree (RESPGEN_SPEC_DIR points at either).
install(FILES specs/redis.lua specs/example.lua DESTINATION "${RG_SPEC_DIR}")
install(FILES specs/overlays/redis.lua DESTINATION "${RG_SPEC_DIR}/overlays")

configure_package_config_file(cmake/respgenConfig.cmake.in
  "${CMAKE_CURRENT_BINARY_DIR}/respgenConfig.cmake" INSTALL_DESTINATION "${RG_CMAKE_DIR}"
  PATH_VARS RG_SPEC_DIR)
write_basic_package_version_file("${CMAKE_CURRENT_BINARY_DIR}/respgenConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}" COMPATIBILITY SameMinorVersion)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/respgenConfig.cmake"
              "${CMAKE_CURRENT_BINARY_DIR}/respgenConfigVersion.cmake"
              cmake/RespgenGenerate.cmake
        DESTINATION "${RG_CMAKE_DIR}")

# The prefix as seen from the .pc file (../.. for lib/pkgconfig), so the installed tree can move.
file(RELATIVE_PATH RG_PC_TO_PREFIX "/prefix/${RG_PC_DIR}" "/prefix")
string(REGEX REPLACE "/$" "" RG_PC_TO_PREFIX "${RG_PC_TO_PREFIX}")
configure_file(cmake/respgen.pc.in "${CMAKE_CURRENT_BINARY_DIR}/respgen.pc" @ONLY)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/respgen.pc" DESTINATION "${RG_PC_DIR}")
# One .pc per adapter (respgen-blocking, respgen-cluster-client, respgen-sentinel-client,
# respgen-uv ...), requiring respgen.
set(RG_PC_blocking_REQUIRES "respgen")
set(RG_PC_cluster_client_REQUIRES "respgen-blocking")
set(RG_PC_sentinel_client_REQUIRES "respgen-blocking")
set(RG_PC_uv_REQUIRES "respgen libuv")
set(RG_PC_tls_REQUIRES "respgen libssl libcrypto")
if(RG_INSTALL_TLS)
  string(APPEND RG_PC_blocking_REQUIRES " respgen-tls")
  string(APPEND RG_PC_uv_REQUIRES " respgen-tls")
endif()
set(RG_PC_cluster_uv_REQUIRES "respgen-uv")
set(RG_PC_sentinel_uv_REQUIRES "respgen-uv")
set(RG_PC_uv_CFLAGS " -D_GNU_SOURCE")
set(RG_PC_cluster_uv_CFLAGS " -D_GNU_SOURCE")
set(RG_PC_sentinel_uv_CFLAGS " -D_GNU_SOURCE")
foreach(a IN LISTS RG_ADAPTERS)
  string(REPLACE "_" "-" RG_PC_NAME "respgen-${a}")
  set(RG_PC_LIB "respgen_${a}")
  set(RG_PC_REQUIRES "${RG_PC_${a}_REQUIRES}")
  set(RG_PC_CFLAGS "${RG_PC_${a}_CFLAGS}")
  configure_file(cmake/respgen-adapter.pc.in "${CMAKE_CURRENT_BINARY_DIR}/${RG_PC_NAME}.pc" @ONLY)
  install(FILES "${CMAKE_CURRENT_BINARY_DIR}/${RG_PC_NAME}.pc" DESTINATION "${RG_PC_DIR}")
endforeach()
