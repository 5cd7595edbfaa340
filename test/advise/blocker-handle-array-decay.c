// An array of struct pointers inside a struct becomes an array of handles:
// it can be subscripted, but not used as a `struct node **`.
// RUN: compactptr-advise %s -- %cflags | FileCheck %s
#include <compactptr.h>
#include <stdlib.h>
#ifndef MARK
#define MARK
#endif

struct MARK node {
  struct node *kids[4];
};
// CHECK: struct node: blocked
// CHECK: blockers (1):

struct node *make(void) { return malloc(sizeof(struct node)); }
void visit(struct node **v, int n);

void f(struct node *p) {
  visit(p->kids, 4); // expected-error {{'kids' is a handle array field; it cannot be used as a pointer, only subscripted (walk it by index, p->kids[i], or pass p and index inside; a function that wants a pointer can take a copy in a local array; memcpy, memmove and memset of handles take sizeof p->kids or n * sizeof p->kids[0] as their size)}}
  // CHECK-NEXT: blocker-handle-array-decay.c:[[@LINE-1]]: the array of 'struct node *' in field 'kids' is used as a pointer; as handles it can only be subscripted [handle-array-decay, plugin: error]
  struct node *first = p->kids[0]; // subscripting is fine
  (void)first;
}
