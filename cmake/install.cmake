# What `cmake --install` puts under the prefix: the three programs, the client library with its
# headers, CMake package (find_package(measurerd CONFIG) -> measurerd::client) and pkg-config
# file, and the protocol documents. scripts/install runs it and adds the systemd units.
include(CMakePackageConfigHelpers)

foreach(program measurerd measurerd-worker measurer)
  if(TARGET ${program})
    # measurerd finds measurerd-worker next to itself.
    install(TARGETS ${program} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()

if(TARGET measurerd_client)
  install(TARGETS measurerd_client EXPORT measurerdTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/measurerd ${PROJECT_BINARY_DIR}/include/measurerd
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")

  set(cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/measurerd)
  install(EXPORT measurerdTargets NAMESPACE measurerd:: DESTINATION ${cmake_dir})
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/measurerdConfig.cmake.in
    ${PROJECT_BINARY_DIR}/measurerdConfig.cmake INSTALL_DESTINATION ${cmake_dir})
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/measurerdConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/measurerdConfig.cmake
    ${PROJECT_BINARY_DIR}/measurerdConfigVersion.cmake DESTINATION ${cmake_dir})

  # The .pc file finds the prefix from its own place, so the tree installs under any --prefix.
  file(RELATIVE_PATH PC_TO_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
  string(REGEX REPLACE "/$" "" PC_TO_PREFIX "${PC_TO_PREFIX}")
  configure_file(${PROJECT_SOURCE_DIR}/cmake/measurerd.pc.in ${PROJECT_BINARY_DIR}/measurerd.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/measurerd.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()

file(GLOB protocol_docs ${PROJECT_SOURCE_DIR}/proto-docs/*.md)
install(FILES ${protocol_docs} DESTINATION ${CMAKE_INSTALL_DOCDIR})
