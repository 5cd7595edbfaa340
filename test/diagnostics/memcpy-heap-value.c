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

// An array whose elements' addresses are taken lives in the compact heap
// (a boxed local or global); an array that is only copied stays a value.
struct node table[4];
void g(void) {
  struct node arr[4], copy[4], again[4];
  struct node *second = &arr[1];
  second->key = 1;
  table[0].next = &table[1];
  memcpy(copy, arr, sizeof arr); // expected-error {{'memcpy' between a heap object of compact type 'struct node'}}
  memcpy(copy, table, sizeof table); // expected-error {{'memcpy' between a heap object of compact type 'struct node'}}
  memcpy(again, copy, sizeof copy); // value to value: both wide, fine
}
