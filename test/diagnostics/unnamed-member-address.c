// A member of a compact struct whose type has no name (an unnamed struct
// holding the links, as <sys/queue.h> entries are): reading and writing
// through it is rewritten, but its address needs the type named in the
// output, which C cannot do: refused at the user's expression (the
// generated code failed to compile, at text the user never wrote).
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=switchable -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <string.h>

struct CP_COMPACT job {
  int id;
  struct { struct job *next, *prev; } link;
  struct { int key; struct job *child; } e[4];
};

int f(struct job *a, struct job *b) {
  __typeof__(a->link) *l = &b->link; // expected-error {{cannot rewrite this use of a compact object's member of unnamed type}}
  memmove(&b->e[0], &b->e[1], 3 * sizeof b->e[0]); // expected-error 2 {{cannot rewrite this use of a compact object's member of unnamed type}}
  a->link.next = b; // through the member by name: rewritten
  return a->link.next->id + (l != 0);
}
