# Configure-time checks for what the tests need.  Each failure is one
# FATAL_ERROR line that names the Debian package to install and, where one
# exists, the option that turns the dependent tests off.  .ci/install-deps
# installs every package named here.

# cmocka: the runtime unit tests.
find_package(PkgConfig)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(CMOCKA QUIET IMPORTED_TARGET GLOBAL cmocka)
endif()
if(NOT CMOCKA_FOUND)
  message(FATAL_ERROR "cmocka not found (the runtime unit tests use it): "
                      "apt-get install libcmocka-dev pkg-config")
endif()

# ASan + UBSan: clang's sanitizer runtimes ship in a package of their own.
if(COMPACTPTR_SANITIZER_TESTS)
  include(CheckCSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS "-fsanitize=address,undefined")
  set(CMAKE_REQUIRED_LINK_OPTIONS "-fsanitize=address,undefined")
  set(CMAKE_REQUIRED_QUIET ON)
  check_c_source_compiles("int main(void) { return 0; }"
                          COMPACTPTR_CAN_LINK_ASAN_UBSAN)
  unset(CMAKE_REQUIRED_FLAGS)
  unset(CMAKE_REQUIRED_LINK_OPTIONS)
  unset(CMAKE_REQUIRED_QUIET)
  if(NOT COMPACTPTR_CAN_LINK_ASAN_UBSAN)
    message(FATAL_ERROR "${CMAKE_C_COMPILER} cannot link -fsanitize=address,undefined: "
                        "apt-get install libclang-rt-19-dev, or configure with "
                        "-DCOMPACTPTR_SANITIZER_TESTS=OFF")
  endif()
endif()

# gcc: test/rewrite/gcc-output.c builds rewritten output with it (the
# rewritten source is plain C that any C compiler takes).
find_program(COMPACTPTR_GCC gcc)
if(NOT COMPACTPTR_GCC)
  message(FATAL_ERROR "gcc not found (a test builds rewritten output with it): "
                      "apt-get install gcc")
endif()

# The toolchain tests (test/toolchain/): distcc and distccd for the
# distributed build, ccache for CCACHE_NOCPP2, gdb for the extension, and
# another clang major version to load the plugin into.
if(COMPACTPTR_BUILD_PLUGIN)
foreach(_cp_tool distcc:distcc distccd:distcc ccache:ccache gdb:gdb clang-14:clang-14)
  string(REPLACE ":" ";" _cp_pair "${_cp_tool}")
  list(GET _cp_pair 0 _cp_prog)
  list(GET _cp_pair 1 _cp_pkg)
  find_program(_cp_found_${_cp_prog} ${_cp_prog})
  if(NOT _cp_found_${_cp_prog})
    message(FATAL_ERROR "${_cp_prog} not found (the toolchain tests use it): "
                        "apt-get install ${_cp_pkg}")
  endif()
endforeach()
if(NOT EXISTS /usr/lib/distcc/clang-19)
  message(FATAL_ERROR "distccd does not allow clang-19 (no /usr/lib/distcc/clang-19): "
                      "run update-distcc-symlinks")
endif()
endif()
