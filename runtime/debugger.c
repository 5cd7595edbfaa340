/*
 * debugger.c - gdb support.  The runtime carries compactptr's gdb extension
 * (tool/gdb/compactptr.py, docs/debugging.md) as an inline script in the
 * .debug_gdb_scripts section, so gdb offers to load it for every program
 * linked with the runtime, statically or not, with no file to install or
 * path to configure (gdb still asks for `set auto-load safe-path`).  The
 * section is read by gdb from the file; the program never touches it.
 */
#include "internal.h"

/* Format of an entry: a kind byte (4: Python text), the script's name on
 * the first line, the text, a NUL (the end of the string literal). */
__attribute__((used, section(".debug_gdb_scripts"))) static const char
    gdb_script[] = "\004compactptr-gdb\n"
#include "compactptr_gdb_script.inc"
    ;

/* The compact arena's bounds for the extension (an object in [start, end)
 * is in the compact layout; handles are zero-based, so they need no base).
 * Set once, when the heap is set up; 0 when there is no compact arena. */
uintptr_t cp__debug_arena_start, cp__debug_arena_end;

/* options.c refers to this, so a static link keeps this file. */
const char cp__gdb_script_anchor = 0;
