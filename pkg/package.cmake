# Debian packages, built by CPack's DEB generator:
#   cmake -S . -B build && cmake --build build --target package
# leaves build/raidctl_<version>_amd64.deb (the tool) and
# build/r5grow-dkms_<version>_all.deb (the module's sources for DKMS).
# The raidctl component is installed by raidctl/CMakeLists.txt.

set(R5G_PKG ${CMAKE_CURRENT_LIST_DIR})
set(R5G_GEN ${CMAKE_BINARY_DIR}/pkg)
set(R5G_DKMS_SRC src/r5grow-${PROJECT_VERSION})

# debian_docs PACKAGE COMPONENT: copyright and changelog.gz of a package.
function(debian_docs pkg component)
	set(PKG ${pkg})
	configure_file(${R5G_PKG}/changelog.in ${R5G_GEN}/${pkg}/changelog @ONLY)
	add_custom_command(OUTPUT ${R5G_GEN}/${pkg}/changelog.gz
		COMMAND gzip -9n -c changelog > changelog.gz
		DEPENDS ${R5G_GEN}/${pkg}/changelog
		WORKING_DIRECTORY ${R5G_GEN}/${pkg} VERBATIM)
	add_custom_target(${pkg}-changelog ALL
		DEPENDS ${R5G_GEN}/${pkg}/changelog.gz)
	install(FILES ${R5G_PKG}/copyright ${R5G_GEN}/${pkg}/changelog.gz
		DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${pkg}
		COMPONENT ${component})
endfunction()

debian_docs(raidctl raidctl)
debian_docs(r5grow-dkms dkms)

# The module's sources, as DKMS builds them.
file(GLOB R5G_KERNEL_SOURCES ${PROJECT_SOURCE_DIR}/kernel/*.c
	${PROJECT_SOURCE_DIR}/kernel/*.h)
install(FILES ${R5G_KERNEL_SOURCES} ${PROJECT_SOURCE_DIR}/kernel/Kbuild
	DESTINATION ${R5G_DKMS_SRC} COMPONENT dkms)
configure_file(${R5G_PKG}/dkms.conf.in ${R5G_GEN}/dkms.conf @ONLY)
install(FILES ${R5G_GEN}/dkms.conf DESTINATION ${R5G_DKMS_SRC}
	COMPONENT dkms)
install(PROGRAMS ${R5G_PKG}/dkms-build DESTINATION ${R5G_DKMS_SRC}
	COMPONENT dkms)
install(FILES ${R5G_PKG}/modprobe.conf DESTINATION /etc/modprobe.d
	RENAME r5grow.conf COMPONENT dkms)
install(PROGRAMS ${R5G_PKG}/initramfs-hook
	DESTINATION share/initramfs-tools/hooks RENAME r5grow
	COMPONENT dkms)
configure_file(${R5G_PKG}/postinst.in ${R5G_GEN}/postinst @ONLY)
configure_file(${R5G_PKG}/prerm.in ${R5G_GEN}/prerm @ONLY)
file(CHMOD ${R5G_GEN}/postinst ${R5G_GEN}/prerm
	PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
	GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)

set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL raidctl dkms)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_PACKAGE_CONTACT
	"raidctl maintainers <maintainers@users.noreply.a-seed-53bca749.example>")
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Each package has its own summary line (CPackDeb would prepend this one).
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "")

set(CPACK_DEBIAN_RAIDCTL_PACKAGE_NAME raidctl)
set(CPACK_DEBIAN_RAIDCTL_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_RAIDCTL_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_RAIDCTL_PACKAGE_RECOMMENDS "mdadm, r5grow-dkms")
set(CPACK_DEBIAN_RAIDCTL_DESCRIPTION
"grow md RAID-5 arrays online onto new disks
raidctl grows a live Linux software RAID-5 array onto new disks, with no
backup file and no downtime, pauses and resumes the grow, and shows its
progress and the health of the arrays. It drives md through sysfs and
mdadm, and works with the r5grow personality and with upstream raid456.")

set(CPACK_DEBIAN_DKMS_PACKAGE_NAME r5grow-dkms)
set(CPACK_DEBIAN_DKMS_PACKAGE_ARCHITECTURE all)
set(CPACK_DEBIAN_DKMS_PACKAGE_SECTION kernel)
set(CPACK_DEBIAN_DKMS_PACKAGE_DEPENDS "dkms (>= 3.0), linux-source-6.1, xz-utils, make")
set(CPACK_DEBIAN_DKMS_PACKAGE_CONTROL_EXTRA
	"${R5G_GEN}/postinst;${R5G_GEN}/prerm;${R5G_PKG}/triggers;${R5G_PKG}/conffiles")
set(CPACK_DEBIAN_DKMS_DESCRIPTION
"md RAID-5 personality that grows live arrays (DKMS sources)
r5grow is an md RAID-5 personality for Linux 6.1 that grows a live array
onto new disks online, crash-safe at every instant, with the on-disk
layout of upstream md. It serves RAID-5 arrays, loaded before raid456,
which keeps RAID-4 and RAID-6. DKMS builds it for each installed kernel,
with md's private headers taken from the matching linux-source-6.1.")
include(CPack)
