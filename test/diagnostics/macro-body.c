// An access produced inside a macro body cannot be rewritten in place; it
// is an error, never silently wrong code.  Accesses in macro arguments are
// rewritten (see test/rewrite/macro-argument.c).
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>

struct CP_COMPACT node { int key; struct node *next; };

#define NEXT_KEY(p) ((p)->next->key + 1)

int f(struct node *p) {
  return NEXT_KEY(p) * 2; // expected-error {{cannot rewrite this use of a compact type: it is produced by macro 'NEXT_KEY'; write the access outside the macro or make it a function}}
}
