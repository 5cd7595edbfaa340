// A loop header that is one macro expansion, with the user's body after
// it (`FOREACH(x, head) body`): only the expansion is replaced, by the
// header printed from the AST; the body keeps its own text, rewritten in
// place like any other code (and, in switchable mode, its polls, frames
// and versioned regions: test/Inputs/macros/iterators.c runs that).
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %clang %cflags -Wall -Werror %t.c %runtime -o %t && %t | FileCheck --check-prefix=OUT %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { int v; struct node *next; };
#define FOREACH(x, head) for ((x) = (head); (x); (x) = (x)->next)

int main(void) {
  struct node *head = NULL, *x;
  for (int i = 1; i <= 4; i++) {
    struct node *n = malloc(sizeof *n);
    n->v = i;
    n->next = head;
    head = n;
  }
  int s = 0;
  FOREACH(x, head) s = s * 10 + x->v;
  // CHECK: {{.*}}for (((x) = (head)); ((x)); ((x) = ((struct node *)cp_decode((((struct cp__c_node *)(((x))))->next))))) CP__QUIET_END s = s * 10 + (((struct cp__c_node *)(x))->v);
  FOREACH(x, head) {
    x->v *= 2;
  }
  // CHECK: {{.*}}for (((x) = (head)); ((x)); ((x) = ((struct node *)cp_decode((((struct cp__c_node *)(((x))))->next))))) CP__QUIET_END {
  // CHECK-NEXT: (((struct cp__c_node *)(x))->v) *= 2;
  printf("%d %d\n", s, head->v);
  // OUT: 4321 8
  return 0;
}
