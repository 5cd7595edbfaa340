// A call through a function pointer field handed a compact pointer as
// `void *` is a void-escape (the callee may keep it), unless the file
// gives that field `free` -- in braces or by assignment, as cJSON's
// hooks -- which makes it a free hook: `cp_hook_is_free(hook) ?
// cp_free_any(p) : hook(p)`, nothing kept.  A callback of the same type
// beside an allocation hook (a walker's `visit`) keeps its warning.
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <stdlib.h>

struct CP_COMPACT item { struct item *next; int v; };

struct hooks { void *(*allocate)(size_t); void (*deallocate)(void *); };
static struct hooks braced = {malloc, free};
struct hooks assigned;

struct walker { void *(*scratch)(size_t); void (*visit)(void *); };

void init(void) {
  assigned.allocate = malloc;
  assigned.deallocate = free;
}
void drop(struct item *it, struct walker *w) {
  braced.deallocate(it);
  assigned.deallocate(it);
  w->visit(it); /* a callback */ // expected-warning {{a compact pointer to 'struct item' is passed as 'void *' to this call}}
}
