# measurerd/version.h in the build tree: version, git commit, compiler and LLVM version. The
# commit is read at configure time; a new commit or checkout reconfigures.
find_package(Git QUIET)
set(MEASURERD_GIT_COMMIT unknown)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short=12 HEAD
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE commit
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  if(rc EQUAL 0 AND commit)
    set(MEASURERD_GIT_COMMIT ${commit})
    execute_process(COMMAND ${GIT_EXECUTABLE} diff --quiet HEAD --
      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} RESULT_VARIABLE dirty ERROR_QUIET)
    if(NOT dirty EQUAL 0)
      string(APPEND MEASURERD_GIT_COMMIT "-dirty")
    endif()
    foreach(ref HEAD logs/HEAD)
      execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --path-format=absolute --git-path ${ref}
        WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE path
        OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      if(path AND EXISTS ${path})
        set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${path})
      endif()
    endforeach()
  endif()
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/version.h.in
  ${PROJECT_BINARY_DIR}/include/measurerd/version.h @ONLY)
