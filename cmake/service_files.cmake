# What makes measurerd a system service besides its programs: man pages and bash completion,
# generated at build time from the programs' own --help (scripts/cli-docs), and the install
# rules for them, the systemd units, the sysusers entry, an example configuration and the
# protocol documents. The units name the installed programs: their @BINDIR@ and @DOCDIR@ are
# filled in at install time, so `cmake --install --prefix P` gets them right for P.
include(GNUInstallDirs)
find_package(Python3 REQUIRED COMPONENTS Interpreter)

set(service_dir ${PROJECT_BINARY_DIR}/service)
set(cli_docs ${PROJECT_SOURCE_DIR}/scripts/cli-docs)
set(man_extra ${PROJECT_SOURCE_DIR}/scripts/man)

if(TARGET measurerd AND TARGET measurerd-worker AND TARGET measurer)
  add_custom_command(OUTPUT ${service_dir}/measurerd.8
    COMMAND ${CMAKE_COMMAND} -E make_directory ${service_dir}
    COMMAND ${Python3_EXECUTABLE} ${cli_docs} man $<TARGET_FILE:measurerd> 8
            ${service_dir}/measurerd.8 --version ${PROJECT_VERSION}
            --extra ${man_extra}/measurerd.8.extra
    DEPENDS measurerd ${cli_docs} ${man_extra}/measurerd.8.extra
    COMMENT "Generating measurerd(8) from measurerd --help")
  add_custom_command(OUTPUT ${service_dir}/measurerd-worker.8
    COMMAND ${CMAKE_COMMAND} -E make_directory ${service_dir}
    COMMAND ${Python3_EXECUTABLE} ${cli_docs} man $<TARGET_FILE:measurerd-worker> 8
            ${service_dir}/measurerd-worker.8 --version ${PROJECT_VERSION}
            --also "--serve --help" --extra ${man_extra}/measurerd-worker.8.extra
    DEPENDS measurerd-worker ${cli_docs} ${man_extra}/measurerd-worker.8.extra
    COMMENT "Generating measurerd-worker(8) from measurerd-worker --help")
  add_custom_command(OUTPUT ${service_dir}/measurer.1
    COMMAND ${CMAKE_COMMAND} -E make_directory ${service_dir}
    COMMAND ${Python3_EXECUTABLE} ${cli_docs} man $<TARGET_FILE:measurer> 1
            ${service_dir}/measurer.1 --version ${PROJECT_VERSION} --subcommands
            --extra ${man_extra}/measurer.1.extra
    DEPENDS measurer ${cli_docs} ${man_extra}/measurer.1.extra
    COMMENT "Generating measurer(1) from measurer --help")
  add_custom_command(OUTPUT ${service_dir}/measurer.bash
    COMMAND ${CMAKE_COMMAND} -E make_directory ${service_dir}
    COMMAND ${Python3_EXECUTABLE} ${cli_docs} completion ${service_dir}/measurer.bash
            $<TARGET_FILE:measurer> $<TARGET_FILE:measurerd>
    DEPENDS measurer measurerd ${cli_docs}
    COMMENT "Generating bash completion from measurer --help and measurerd --help")
  add_custom_target(service_docs ALL DEPENDS ${service_dir}/measurerd.8
    ${service_dir}/measurerd-worker.8 ${service_dir}/measurer.1 ${service_dir}/measurer.bash)

  install(FILES ${service_dir}/measurerd.8 ${service_dir}/measurerd-worker.8
          DESTINATION ${CMAKE_INSTALL_MANDIR}/man8)
  install(FILES ${service_dir}/measurer.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  # bash-completion loads completions/<command> on first use: one file serves both commands.
  install(FILES ${service_dir}/measurer.bash
          DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME measurer)
  install(FILES ${service_dir}/measurer.bash
          DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME measurerd)
endif()

install(FILES ${PROJECT_SOURCE_DIR}/scripts/systemd/measurerd.sysusers
        DESTINATION lib/sysusers.d RENAME measurerd.conf)
# (proto-docs are installed with the programs, cmake/install.cmake.)
install(FILES ${PROJECT_SOURCE_DIR}/scripts/systemd/measurerd.conf.example
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(CODE "
  set(mrd_unit_sources \"${PROJECT_SOURCE_DIR}/scripts/systemd\")
  set(mrd_unit_staging \"${service_dir}/units\")
  set(mrd_bindir \"${CMAKE_INSTALL_BINDIR}\")
  set(mrd_docdir \"${CMAKE_INSTALL_DOCDIR}\")")
install(SCRIPT ${CMAKE_CURRENT_LIST_DIR}/install_units.cmake)
