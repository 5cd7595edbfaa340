// A compact struct of no name that the rewritten code could not be given
// a tag for: a macro of the program's own passes an empty name on to
// <sys/queue.h>'s LIST_HEAD from its body (the tag would go inside the
// macro).  Refused, at the variable; a head written with LIST_HEAD in the
// file is named (rewrite/unnamed-variable-type.c).
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <sys/queue.h>

struct CP_COMPACT job {
  int id;
  LIST_ENTRY(job) all;
};

#define JOB_LIST(var) LIST_HEAD(, job) var
static JOB_LIST(pending); // expected-error {{compact type needs a name: give the struct a tag or a typedef}}

int pending_empty(void) { return LIST_EMPTY(&pending); }
