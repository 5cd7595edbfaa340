# The gdb extension as a C string (runtime/debugger.c embeds it in the
# .debug_gdb_scripts section), regenerated when the script changes, and the
# script itself installed for `source` by hand.
set(_cp_gdb_script "${PROJECT_SOURCE_DIR}/tool/gdb/compactptr.py")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_cp_gdb_script}")
file(READ "${_cp_gdb_script}" _cp_gdb_text)
string(REPLACE "\\" "\\\\" _cp_gdb_text "${_cp_gdb_text}")
string(REPLACE "\"" "\\\"" _cp_gdb_text "${_cp_gdb_text}")
string(REPLACE "?" "\\?" _cp_gdb_text "${_cp_gdb_text}")
string(REPLACE "\n" "\\n\"\n  \"" _cp_gdb_text "${_cp_gdb_text}")
file(CONFIGURE OUTPUT "${PROJECT_BINARY_DIR}/include/compactptr_gdb_script.inc"
     CONTENT "/* Generated from tool/gdb/compactptr.py by cmake/GdbScript.cmake. */\n  \"${_cp_gdb_text}\"\n"
     @ONLY)
install(FILES "${_cp_gdb_script}"
        DESTINATION ${CMAKE_INSTALL_DATADIR}/compactptr/gdb)
