// Accesses in macro arguments are rewritten in place; the macro itself is
// left alone.  (Accesses inside macro bodies: test/diagnostics/macro-body.c.)
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %clang %cflags -Wall -Werror %t.c %runtime -o %t && %t | FileCheck --check-prefix=OUT %s
#include <compactptr.h>
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define SET(lv, v) ((lv) = (v))

struct CP_COMPACT node { int key; struct node *next; };

int main(void) {
  struct node *p = malloc(sizeof *p);
  SET(p->key, 4);
  // CHECK: SET((((struct cp__c_node *)(p))->key), 4);
  p->next = NULL;
  assert(p->next == NULL);
  printf("%d\n", MAX(p->key, 3));
  // CHECK: printf("%d\n", MAX((((struct cp__c_node *)(p))->key), 3));
  // OUT: 4
  free(p);
  return 0;
}
