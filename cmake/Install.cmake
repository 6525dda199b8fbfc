# `cmake --install` puts the inference library where a C++ program can use it:
#   include/paddle_like/inference_api.h        the public API (standard headers only)
#   lib/libpl_*.so                              the library and the runtime libraries it needs
#   lib/cmake/paddle_like/paddle_likeConfig*.cmake
#   bin/paddle_like                             the command-line tool
# A consumer writes find_package(paddle_like) and links paddle_like::inference
# (examples/infer_npy is one, built against the installed package by a test).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(PL_INSTALLED_LIBS pl_platform pl_framework pl_operators pl_inference pl_api)
# Installed libraries find one another beside themselves, the tool one directory up.
set_target_properties(${PL_INSTALLED_LIBS} PROPERTIES INSTALL_RPATH "$ORIGIN")
set_target_properties(paddle_like PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
install(TARGETS ${PL_INSTALLED_LIBS} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS paddle_like RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/paddle_like/inference_api.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/paddle_like)

set(PL_CONFIG_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/paddle_like)
# The clang sanitizer build leaves the sanitizer runtimes to the program (Sanitizers.cmake).
set(PL_CONSUMER_LINK_OPTIONS "")
if(PL_FUZZ_TARGETS)
  set(PL_CONSUMER_LINK_OPTIONS "-fsanitize=address,undefined")
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/paddle_likeConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/paddle_likeConfig.cmake
                              INSTALL_DESTINATION ${PL_CONFIG_DIR}
                              PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/paddle_likeConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/paddle_likeConfig.cmake
              ${PROJECT_BINARY_DIR}/paddle_likeConfigVersion.cmake
        DESTINATION ${PL_CONFIG_DIR})
