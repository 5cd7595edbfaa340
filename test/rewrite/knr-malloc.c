// Old programs declare malloc themselves, K&R style, and define functions
// K&R style; both are rewritten.
// RUN: %rewrite --main-only %s -- %cflags -std=gnu89 -Wno-deprecated-non-prototype > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %clang %cflags -std=gnu89 -w %t.c %runtime -o %t && %t | FileCheck --check-prefix=OUT %s
#include <compactptr.h>
#include <stdio.h>

extern char *malloc();
extern void free();

struct CP_COMPACT cell { int val; struct cell *cdr; };

struct cell *cons(v, rest)
  int v;
  struct cell *rest;
{
  struct cell *c = (struct cell *)malloc(sizeof(struct cell));
  // CHECK: struct cell *c = (struct cell *)cp_alloc(&cp__desc_cell);
  c->val = v;
  c->cdr = rest;
  return c;
}

int main() {
  struct cell *l = cons(1, cons(2, (struct cell *)0));
  printf("%d %d\n", l->val, l->cdr->val);
  // OUT: 1 2
  free(l->cdr);
  // CHECK: cp_free(((struct cell *)cp_decode((((struct cp__c_cell *)(l))->cdr))));
  free(l);
  return 0;
}
