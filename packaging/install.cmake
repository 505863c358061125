# Installation and the Debian package (included from the top CMakeLists.txt).
#
#   cmake --install BUILD [--prefix /usr/local] [--strip]
#   cmake --build BUILD --target package      (or: cd BUILD && cpack -G DEB)
#
# The version has one source: project(fslab VERSION ...) in CMakeLists.txt.
# It reaches `fslab --version` (FSLAB_VERSION), the man page's header, the
# package's version and the top entry of the Debian changelog.
include(GNUInstallDirs)

set(FSLAB_DEB_RELEASE 1 CACHE STRING "Debian revision of the package (the -N in VERSION-N)")
set(FSLAB_DEB_VERSION "${PROJECT_VERSION}-${FSLAB_DEB_RELEASE}")

# Documentation compressed at build time (gzip -9n, as Debian wants it).
set(_pkg ${CMAKE_CURRENT_LIST_DIR})
set(_out ${CMAKE_BINARY_DIR}/packaging)
add_custom_command(OUTPUT ${_out}/fslab.1.gz
  COMMAND ${CMAKE_COMMAND} -DIN=${CMAKE_SOURCE_DIR}/docs/fslab.1 -DOUT=${_out}/fslab.1.gz
          -DVERSION=${PROJECT_VERSION} -P ${_pkg}/gzip-doc.cmake
  DEPENDS ${CMAKE_SOURCE_DIR}/docs/fslab.1 ${_pkg}/gzip-doc.cmake
  COMMENT "Compressing the man page" VERBATIM)
add_custom_command(OUTPUT ${_out}/changelog.Debian.gz
  COMMAND ${CMAKE_COMMAND} -DIN=${_pkg}/changelog -DOUT=${_out}/changelog.Debian.gz
          -DVERSION=${FSLAB_DEB_VERSION} -P ${_pkg}/gzip-doc.cmake
  DEPENDS ${_pkg}/changelog ${_pkg}/gzip-doc.cmake
  COMMENT "Compressing the Debian changelog" VERBATIM)
add_custom_target(fslab_docs ALL DEPENDS ${_out}/fslab.1.gz ${_out}/changelog.Debian.gz)

# Directories the install creates are 0755 whatever the umask of the one
# who builds the package.
set(CMAKE_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
  OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
set(_doc_perms OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)

install(TARGETS fslab RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${_out}/fslab.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 PERMISSIONS ${_doc_perms})
install(FILES ${CMAKE_SOURCE_DIR}/completion/fslab.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
  RENAME fslab PERMISSIONS ${_doc_perms})
file(GLOB _guides CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/docs/*.md)
install(FILES ${CMAKE_SOURCE_DIR}/README.md ${_guides} ${_out}/changelog.Debian.gz ${_pkg}/copyright
  DESTINATION ${CMAKE_INSTALL_DOCDIR} PERMISSIONS ${_doc_perms})
# The Ansible playbook, its example inventory and the fslab role, as the
# repository has them (lab.yml finds the role in roles/ beside it), so an
# installed fslab can drive a lab across machines:
#   ansible-playbook -i inventory.yml /usr/share/fslab/ansible/lab.yml
# Only the YAML: nothing a local ansible or ansible-lint left in the tree.
install(DIRECTORY ${CMAKE_SOURCE_DIR}/ansible/ DESTINATION ${CMAKE_INSTALL_DATADIR}/fslab/ansible
  FILE_PERMISSIONS ${_doc_perms} FILES_MATCHING PATTERN "*.yml")

# The Debian package.  Depends: the shared libraries' packages (libsmartcols1
# for the text tables and liburing2 for the queued tests among them), computed by dpkg-shlibdeps (dpkg-dev).  Recommends: the mkfs programs of the
# built-in layout, gnuplot for the report's plots and smartmontools for a
# drive's temperature and SMART verdict around preconditioning - without them fslab
# still runs, and setup refuses a layout whose mkfs is missing before it
# writes a byte, naming the package to install.  Suggests: fusefat, needed
# only on a kernel without vfat (FAT32 is then mounted through FUSE).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME fslab)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "fslab maintainers <maintainers@users.noreply.a-seed-72ce0639.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "lab for benchmarking Linux filesystems on a dedicated disk")
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE ${FSLAB_DEB_RELEASE})
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "e2fsprogs, xfsprogs, dosfstools, btrfs-progs, gnuplot-nox | gnuplot, smartmontools")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "fusefat")
file(READ ${_pkg}/description CPACK_DEBIAN_PACKAGE_DESCRIPTION)  # CPack puts the summary first
# Maintainer scripts: prerm refuses removal while the default state file's
# lab is mounted; postrm purge removes what fslab left in /var/lib/fslab
# (*.lock, *.log) and says what it keeps.
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA "${_pkg}/prerm;${_pkg}/postrm")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
include(CPack)
