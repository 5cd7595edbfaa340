// Storing the address of a local or global object into a struct pointer
// blocks the struct: compact pointers can only point into the arena.
// Taking the address as bytes (memset) is fine.
// RUN: compactptr-advise %s -- %cflags | FileCheck %s
#include <compactptr.h>
#include <stdlib.h>
#include <string.h>
#ifndef MARK
#define MARK
#endif

struct MARK node {
  int key;
  struct node *next;
};
// CHECK: struct node: blocked
// CHECK: blockers (2):

static struct node sentinel;
static struct node pool[8];

struct node *make(void) { return malloc(sizeof(struct node)); }

void link_sentinel(struct node *n) {
  n->next = &sentinel; // expected-error {{storing the address of global 'sentinel' into compact field 'next'; compact fields can only point to heap objects}}
  // CHECK-NEXT: blocker-non-heap-address.c:[[@LINE-1]]: the address of global 'sentinel' is stored into pointer field 'next'; 'struct node' objects must be on the heap [non-heap-address, plugin: error]
}

struct node *first(void) {
  struct node local;
  memset(&local, 0, sizeof local); // a byte address: fine
  return pool; // expected-error {{the address of global 'pool' cannot be used as a compact pointer}}
  // CHECK-NEXT: blocker-non-heap-address.c:[[@LINE-1]]: the address of global 'pool' is used as a 'struct node *'; 'struct node' objects must be on the heap [non-heap-address, plugin: error]
}
