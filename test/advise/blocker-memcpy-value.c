// memcpy or memmove between a heap object and a local or global value of
// the same struct blocks it: the heap object is in compact layout, the
// value in wide layout.  Heap to heap and value to value are fine.
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

struct node *make(void) { return malloc(sizeof(struct node)); }

void f(struct node *p, struct node *q) {
  struct node v;
  memcpy(&v, p, sizeof v); // expected-error {{'memcpy' between a heap object of compact type 'struct node' (compact layout) and a value (wide layout)}}
  // CHECK-NEXT: blocker-memcpy-value.c:[[@LINE-1]]: 'memcpy' between a heap 'struct node' and a value; the heap object is in compact layout (use assignment) [memcpy-value, plugin: error]
  memmove(q, &v, sizeof v); // expected-error {{'memmove' between a heap object of compact type 'struct node'}}
  // CHECK-NEXT: blocker-memcpy-value.c:[[@LINE-1]]: 'memmove' between a heap 'struct node' {{.*}} [memcpy-value, plugin: error]
  memcpy(p, q, sizeof *p); // heap to heap: fine
  struct node w;
  memcpy(&w, &v, sizeof w); // value to value: fine
}
