// Compact fields can only point to heap objects: a local or global value of
// a compact type lives in wide layout, outside the arena.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <string.h>

struct CP_COMPACT node {
  int key;
  struct node *next;
};

struct node sentinel;

void link_local(struct node *p) {
  struct node local;
  p->next = &local; // expected-error {{storing the address of local 'local' into compact field 'next'; compact fields can only point to heap objects}}
  p->next = &sentinel; // expected-error {{storing the address of global 'sentinel' into compact field 'next'}}
}

struct node *escape(void) {
  static struct node pool[4];
  struct node *q = &pool[1]; // expected-error {{the address of static local 'pool' cannot be used as a compact pointer; compact pointers must point to heap objects (allocate it with malloc)}}
  return q;
}

// Byte addresses of values are fine: memset, memcpy.
void clear(void) {
  struct node v;
  memset(&v, 0, sizeof v);
}
