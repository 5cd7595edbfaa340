// The address of a handle field is a pointer to a 4-byte handle slot in
// compact layout.  It is allowed where the plugin can follow it (locals,
// parameters, static functions' results; slot-pointer-escape.c has the
// refusals); the address of a whole handle array is not, since it is not
// a `struct node **` that loads and stores could tell from a native one.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: not %rewrite %s -- %cflags 2>&1 | FileCheck %s
#include <compactptr.h>

struct CP_COMPACT node {
  int key;
  struct node *next;
  struct node *kids[4];
};

static struct node **slot_of_next(struct node *p) { return &p->next; }

static struct node **slot_of_kid(struct node *p, int i) { return &p->kids[i]; }

struct node *second(struct node *p) {
  struct node **pp = slot_of_next(p);
  return *pp ? *slot_of_kid(*pp, 0) : 0;
}

struct node *(*all_kids(struct node *p))[4] {
  return &p->kids; // expected-error {{'kids' is a handle array field; its address cannot be taken (the address of one element, &p->kids[i], can)}}
}

// The address of a plain field is fine: it is a native pointer into the
// object either way.
int *key_of(struct node *p) { return &p->key; }

// CHECK: address-of-handle-field.c:27:10: error: 'kids' is a handle array field; its address cannot be taken
