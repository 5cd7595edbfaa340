// Taking the address of a struct pointer field blocks the type it points
// to: once that type is compact the field is a 32-bit handle, and a
// `struct node **` must point at a native slot.  The expected diagnostics
// are what the plugin says on the same lines when the type is marked
// (plugin-agreement.test builds every blocker-*.c with -DMARK=CP_COMPACT).
// RUN: compactptr-advise %s -- %cflags | FileCheck %s
#include <compactptr.h>
#include <stdlib.h>
#ifndef MARK
#define MARK
#endif

struct MARK node {
  int key;
  struct node *next;
  struct node *kids[4];
};
// CHECK: struct node: blocked
// CHECK: heap-allocated and self-referential

struct node *make(void) { return malloc(sizeof(struct node)); }

struct node **slot_of_next(struct node *p) {
  return &p->next; // expected-error {{'next' is a handle field; its address cannot be taken}}
  // CHECK: blocker-address-of-field.c:[[@LINE-1]]: the address of pointer field 'next' (a 'struct node *') is taken [address-of-field, plugin: error]
}

struct node **slot_of_kid(struct node *p, int i) {
  return &p->kids[i]; // expected-error {{'kids' is a handle field; its address cannot be taken}}
  // CHECK: blocker-address-of-field.c:[[@LINE-1]]: the address of pointer field 'kids' (a 'struct node *') is taken [address-of-field, plugin: error]
}

// Not a blocker: the address of a plain field is a native pointer into the
// object in either layout.
int *key_of(struct node *p) { return &p->key; }
// CHECK-NOT: blocker-address-of-field.c:[[@LINE-1]]
