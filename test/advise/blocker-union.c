// A union member holding a pointer to a struct (or the struct itself)
// blocks that struct: a handle and a pointer cannot share storage.
// RUN: compactptr-advise %s -- %cflags | FileCheck %s
#include <compactptr.h>
#include <stdlib.h>
#ifndef MARK
#define MARK
#endif

struct MARK node {
  long key;
  struct node *next;
};
// CHECK: struct node: blocked
// CHECK: blockers (1):

union slot {
  struct node *n; // expected-error {{union member 'n' holds a compact pointer to 'struct node'; compact pointers cannot live in unions}}
  // CHECK-NEXT: blocker-union.c:[[@LINE-1]]: union member 'n' holds a pointer to 'struct node' [union, plugin: error]
  long bits;
};

struct node *make(void) { return malloc(sizeof(struct node)); }
