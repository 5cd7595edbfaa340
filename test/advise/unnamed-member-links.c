// A struct whose links to its own kind sit in a member struct it holds by
// value (klib's kavl: `struct { struct avl *p[2]; } head;`, unnamed) is
// self-referential: a candidate, as if the links were its own fields.
// RUN: compactptr-advise %s -- %cflags | FileCheck %s
// CHECK: compactptr-advise: 4 structs, 1 candidate (1 clean, 0 blocked, 0 no gain), 0 already annotated
// CHECK: 1  clean              32      16    16     1     16  struct avl
// CHECK: struct avl: clean
// CHECK-NEXT: defined at {{.*}}unnamed-member-links.c:[[# @LINE + 3]]
// CHECK-NEXT: heap-allocated and self-referential
#include <stdlib.h>
struct avl {
  int key;
  struct {
    struct avl *p[2];
    signed char balance;
  } head;
};
struct plain { int a; struct { long b; } in; };
struct avl *mk(int k) {
  struct avl *x = calloc(1, sizeof *x);
  x->key = k;
  return x;
}
struct plain *mkp(void) { return calloc(1, sizeof(struct plain)); }
