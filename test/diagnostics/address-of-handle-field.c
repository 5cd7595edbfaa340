// The address of a handle field cannot be taken: in compact layout the field
// is a 32-bit handle, and a `struct node **` must point at a native slot.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: not %rewrite %s -- %cflags 2>&1 | FileCheck %s
#include <compactptr.h>

struct CP_COMPACT node {
  int key;
  struct node *next;
  struct node *kids[4];
};

struct node **slot_of_next(struct node *p) {
  return &p->next; // expected-error {{'next' is a handle field; its address cannot be taken}}
}

struct node **slot_of_kid(struct node *p, int i) {
  return &p->kids[i]; // expected-error {{'kids' is a handle field; its address cannot be taken}}
}

// The address of a plain field is fine: it is a native pointer into the
// object either way.
int *key_of(struct node *p) { return &p->key; }

// CHECK: address-of-handle-field.c:15:10: error: 'next' is a handle field; its address cannot be taken
// CHECK: address-of-handle-field.c:19:10: error: 'kids' is a handle field; its address cannot be taken
