// Storing the address of a value that cannot live in the compact heap into
// a struct pointer blocks the struct: compact pointers can only point into
// the arena.  Locals and globals of the struct type are placed there by the
// plugin when their address is used (not blockers), arrays of them too;
// parameters passed by value and variable-length arrays are not.  Taking
// the address as bytes (memset) is fine.
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

void link_param(struct node *n, struct node v) {
  n->next = &v; // expected-error {{storing the address of parameter 'v' into compact field 'next'; compact fields can only point to heap objects}}
  // CHECK-NEXT: blocker-non-heap-address.c:[[@LINE-1]]: the address of local 'v' is stored into pointer field 'next'; 'struct node' objects must be on the heap [non-heap-address, plugin: error]
  n->next = &sentinel; // placed in the compact heap: fine
}

struct node *first(void) {
  struct node local;
  memset(&local, 0, sizeof local); // a byte address: fine
  return pool; // placed in the compact heap: fine
}

struct node *row(int n) {
  struct node vla[n];
  vla[0].key = n;
  struct node *last = &vla[n - 1]; // expected-error {{the address of local 'vla' cannot be used as a compact pointer}}
  // CHECK-NEXT: blocker-non-heap-address.c:[[@LINE-1]]: the address of local 'vla' is used as a 'struct node *'; 'struct node' objects must be on the heap [non-heap-address, plugin: error]
  return last->next;
}
