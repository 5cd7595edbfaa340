// memcpy between a heap object (compact layout) and a value (wide layout)
// of a compact type would copy the wrong bytes: use assignment.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <string.h>

struct CP_COMPACT node { int key; struct node *next; };

void f(struct node *p, struct node *q) {
  struct node v;
  memcpy(&v, p, sizeof v); // expected-error {{'memcpy' between a heap object of compact type 'struct node' (compact layout) and a value (wide layout); use assignment (*p = v or v = *p) instead}}
  memmove(q, &v, sizeof v); // expected-error {{'memmove' between a heap object of compact type 'struct node'}}
  memcpy(p, q, sizeof *p); // heap to heap: both compact, fine
  struct node w;
  memcpy(&w, &v, sizeof w); // value to value: both wide, fine
}
