# Shared by the bare-metal toolchain files (arm-none-eabi.cmake, riscv32-unknown-elf.cmake):
# libraries and headers come from the toolchain's own tree, `TESSERA_SYSROOT`; programs from
# the host.
set(CMAKE_FIND_ROOT_PATH ${TESSERA_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Boost.Hana is header-only, but the cross compiler must not search /usr/include (it would pick
# the host's libc headers): give it a folder that holds only a link to the host's Boost. The
# top-level CMakeLists.txt turns it into the Boost::headers target.
set(TESSERA_HOST_BOOST_INCLUDE_DIR /usr/include CACHE PATH "Folder holding the host's boost/ headers")
set(TESSERA_CROSS_BOOST_INCLUDE_DIR ${CMAKE_BINARY_DIR}/boost-only)
if(EXISTS ${TESSERA_HOST_BOOST_INCLUDE_DIR}/boost/version.hpp AND NOT EXISTS ${TESSERA_CROSS_BOOST_INCLUDE_DIR}/boost)
  file(MAKE_DIRECTORY ${TESSERA_CROSS_BOOST_INCLUDE_DIR})
  file(CREATE_LINK ${TESSERA_HOST_BOOST_INCLUDE_DIR}/boost ${TESSERA_CROSS_BOOST_INCLUDE_DIR}/boost SYMBOLIC)
endif()
