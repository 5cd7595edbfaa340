// Chains of member accesses (p->a->b->c) are rewritten as one expression,
// each handle decoded once on the way.
// RUN: %rewrite %s -- %cflags | FileCheck --match-full-lines %s
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: %clang %cflags -Wall -Werror %t.c %runtime -o %t && %t | FileCheck --check-prefix=OUT %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT n { int v; struct n *a; };

int third(struct n *p) { return p->a->a->v; }
// CHECK: int third(struct n *p) { return (((struct cp__c_n *)(((struct n *)cp_decode((((struct cp__c_n *)(((struct n *)cp_decode((((struct cp__c_n *)(p))->a)))))->a)))))->v); }

void relink(struct n *p) { p->a->a = p; }
// CHECK: void relink(struct n *p) { cp__sth(&(((struct cp__c_n *)(((struct n *)cp_decode((((struct cp__c_n *)(p))->a)))))->a), p); }

int main(void) {
  struct n *x = malloc(sizeof *x), *y = malloc(sizeof *y);
  x->v = 1; y->v = 2; x->a = y; y->a = x;
  printf("%d\n", third(x));
  relink(x);
  printf("%d %d\n", third(y), (x->a->a == x));
  // OUT: 1
  // OUT-NEXT: 2 1
  free(x); free(y);
  return 0;
}
