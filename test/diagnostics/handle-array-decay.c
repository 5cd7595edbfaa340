// A handle array field can only be subscripted: decaying it to a
// `struct node **` would hand out the address of handles.  Clearing it
// whole, `memset(p->kids, 0, sizeof p->kids)`, is fine
// (rewrite/handle-array-memset.c), and so is a run of slots cleared or
// moved, `k * sizeof p->kids[0]` (rewrite/handle-run-decayed.c); a clear
// sized otherwise, or whose result is kept (the array's address), is not.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <string.h>

struct CP_COMPACT node {
  struct node *kids[4];
};

void visit(struct node **v, int n);

void f(struct node *p) {
  visit(p->kids, 4); // expected-error {{'kids' is a handle array field; it cannot be used as a pointer, only subscripted (walk it by index, p->kids[i], or pass p and index inside; a function that wants a pointer can take a copy in a local array; memcpy, memmove and memset of handles take sizeof p->kids or n * sizeof p->kids[0] as their size)}}
  visit(&p->kids[0], 1); // expected-error {{the address of handle field 'kids' is passed to 'visit', which is not defined in this translation unit}}
  memset(p->kids, 0, sizeof p->kids);
  memset(p->kids, 0, 4 * sizeof(struct node *)); // a run of 4 handles: fine
  memmove(p->kids + 1, p->kids, 3 * sizeof p->kids[0]); // fine too
  memset(p->kids, 0, 32); // expected-error {{'kids' is a handle array field; it cannot be used as a pointer, only subscripted (walk it by index, p->kids[i], or pass p and index inside; a function that wants a pointer can take a copy in a local array; memcpy, memmove and memset of handles take sizeof p->kids or n * sizeof p->kids[0] as their size)}}
  struct node **r = memset(p->kids, 0, sizeof p->kids); // expected-error {{'kids' is a handle array field; it cannot be used as a pointer, only subscripted (walk it by index, p->kids[i], or pass p and index inside; a function that wants a pointer can take a copy in a local array; memcpy, memmove and memset of handles take sizeof p->kids or n * sizeof p->kids[0] as their size)}}
  (void)r;
  if (memset(p->kids, 0, sizeof p->kids)) {} // tested only: fine
  memset(p->kids, 1, sizeof p->kids); // expected-error {{'kids' is a handle array field; it cannot be used as a pointer, only subscripted (walk it by index, p->kids[i], or pass p and index inside; a function that wants a pointer can take a copy in a local array; memcpy, memmove and memset of handles take sizeof p->kids or n * sizeof p->kids[0] as their size)}}
  struct node *first = p->kids[0]; // subscripting is fine: no diagnostic
  (void)first;
}
