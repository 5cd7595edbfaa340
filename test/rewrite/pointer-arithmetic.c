// Pointer arithmetic, subscripts and differences on heap arrays of compact
// structs use the compact stride.
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %clang %cflags -Wall -Werror %t.c %runtime -o %t && %t | FileCheck --check-prefix=OUT %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT elem { int v; struct elem *link; };

int main(void) {
  struct elem *a = malloc(10 * sizeof(struct elem));
  // CHECK: struct elem *a = cp_alloc_array(&cp__desc_elem, (unsigned long)(10));
  for (int i = 0; i < 10; i++) {
    a[i].v = i;
    a[i].link = i ? &a[i - 1] : NULL;
  }
  // CHECK: ((((struct cp__c_elem *)(a))[i]).v) = i;
  struct elem *e = a + 9, *q = &a[3];
  // CHECK: struct elem *e = ((struct elem *)((struct cp__c_elem *)(a) + (9))), *q = ((struct elem *)(&(((struct cp__c_elem *)(a))[3])));
  long d = e - q;
  // CHECK: long d = ((struct cp__c_elem *)(e) - (struct cp__c_elem *)(q));
  e--;
  e -= 2;
  ++e;
  // CHECK: cp__padd(&(e), -(long)sizeof(struct cp__c_elem), 1);
  // CHECK: cp__padd(&(e), -(long)(2) * (long)sizeof(struct cp__c_elem), 0);
  // CHECK: cp__padd(&(e), (long)sizeof(struct cp__c_elem), 0);
  printf("%d %d %ld %d %d\n", a[9].link->v, e->v, d, (e + 1)->link->v, (*(a + 4)).v);
  // OUT: 8 7 6 7 4
  free(a);
  return 0;
}
