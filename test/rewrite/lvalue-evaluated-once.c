// Every lvalue is evaluated once: stores through a handle field, compound
// assignment and ++ on handle fields take the slot's address once.
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %clang %cflags -Wall -Werror %t.c %runtime -o %t && %t | FileCheck --check-prefix=OUT %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *kids[4]; struct node *cur; };

static int calls;
static struct node *f(struct node *p) { calls++; return p; }

int main(void) {
  struct node *p = malloc(sizeof *p), *q = malloc(sizeof *q);
  struct node *arr = malloc(4 * sizeof(struct node));
  int i = 0;
  p->kids[i++] = q;
  // CHECK: cp__sth_known(&((((struct cp__c_node *)(p))->kids)[i++]), q);
  f(p)->cur = arr;
  // CHECK: cp__sth_known(&(((struct cp__c_node *)(f(p)))->cur), arr);
  f(p)->cur++;
  // CHECK: cp__hadd(&(((struct cp__c_node *)(f(p)))->cur), (long)sizeof(struct cp__c_node), 1);
  f(p)->cur += 2;
  // CHECK: cp__hadd(&(((struct cp__c_node *)(f(p)))->cur), (long)(2) * (long)sizeof(struct cp__c_node), 0);
  printf("i=%d calls=%d kid=%d off=%ld\n", i, calls, p->kids[0] == q, (long)(p->cur - arr));
  // OUT: i=1 calls=3 kid=1 off=3
  free(arr); free(p); free(q);
  return 0;
}
