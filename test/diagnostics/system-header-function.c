// A function defined in a system header that uses a compact type (written
// there, or produced by a macro invoked there) is refused: the plugin
// leaves system headers as they are, so the function would read compact
// objects in the native layout (it segfaulted).  A macro defined in a
// system header and invoked in the user's file is spelled out and
// rewritten (test/rewrite/generator-macro.c); the header's generic code
// is left alone.
// REQUIRES: plugin
// RUN: not %clang %cflags -fplugin=%plugin -fsyntax-only -isystem %S/Inputs/system %s 2>&1 | FileCheck %s
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -I %S/Inputs/system %s
// CHECK-DAG: listgen.h:5:13: error: the function 'sys_len' is defined in a system header and uses a compact type; the plugin does not rewrite system headers, so it would read compact objects in the wrong layout: define it in a file of your own, or include its header with -I instead of -isystem
// CHECK-DAG: listgen.h:6:1: error: the function 'sysgen_len' is defined in a system header and uses a compact type
// CHECK-NOT: sys_count
// CHECK: 2 errors generated.
#include <compactptr.h>

struct CP_COMPACT cell { long v; struct cell *nx; };

#include <listgen.h>

LISTGEN(mine, cell, nx)

long both(struct cell *c) { return mine_len(c) + sys_len(c) + sysgen_len(c) + sys_count(0, 0); }
