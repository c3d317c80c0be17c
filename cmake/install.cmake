# `cmake --install` lays out the tool, the runtime and its headers, and a package config so that
# consumers write find_package(respgen) and call respgen_generate().
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(RG_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/respgen")
install(TARGETS respgen EXPORT respgenTargets RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
install(TARGETS respgen_runtime EXPORT respgenTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}")
install(FILES runtime/rg.h runtime/rg_dec.h runtime/rg_enc.h runtime/rg_keys.h runtime/rg_req.h runtime/rg_out.h
              runtime/rg_args.h runtime/rg_reply.h runtime/rg_push.h runtime/rg_conn.h
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/respgen")
install(EXPORT respgenTargets NAMESPACE respgen:: DESTINATION "${RG_CMAKE_DIR}")

configure_package_config_file(cmake/respgenConfig.cmake.in
  "${CMAKE_CURRENT_BINARY_DIR}/respgenConfig.cmake" INSTALL_DESTINATION "${RG_CMAKE_DIR}")
write_basic_package_version_file("${CMAKE_CURRENT_BINARY_DIR}/respgenConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}" COMPATIBILITY SameMinorVersion)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/respgenConfig.cmake"
              "${CMAKE_CURRENT_BINARY_DIR}/respgenConfigVersion.cmake"
              cmake/RespgenGenerate.cmake
        DESTINATION "${RG_CMAKE_DIR}")
