# Install step of the systemd units (see service_files.cmake): fills in the programs' and
# documents' directories under the prefix being installed to, then installs the units.
foreach(dir mrd_unit_sources mrd_unit_staging mrd_bindir mrd_docdir)
  if(NOT DEFINED ${dir})
    message(FATAL_ERROR "install_units.cmake: ${dir} is not set")
  endif()
endforeach()
set(units)
foreach(unit measurerd.service measurerd.socket)
  file(READ ${mrd_unit_sources}/${unit} text)
  string(REPLACE "@BINDIR@" "${CMAKE_INSTALL_PREFIX}/${mrd_bindir}" text "${text}")
  string(REPLACE "@DOCDIR@" "${CMAKE_INSTALL_PREFIX}/${mrd_docdir}" text "${text}")
  file(WRITE ${mrd_unit_staging}/${unit} "${text}")
  list(APPEND units ${mrd_unit_staging}/${unit})
endforeach()
file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/lib/systemd/system" TYPE FILE
     PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ FILES ${units})
