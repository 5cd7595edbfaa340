// Conditional operands and call results as bases of member accesses: each
// operand is rewritten on its own and the call is evaluated once.
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %clang %cflags -Wall -Werror %t.c %runtime -o %t && %t | FileCheck --check-prefix=OUT %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *left, *right; };

static int calls;
static struct node *id(struct node *p) { calls++; return p; }

int main(void) {
  struct node *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
  a->key = 1; b->key = 2; a->left = b; a->right = a;
  int k = (a->key > 0 ? a->left : a->right)->key;
  // CHECK: int k = (((struct cp__c_node *)((((((struct cp__c_node *)(a))->key) > 0 ? ((struct node *)cp_decode((((struct cp__c_node *)(a))->left))) : ((struct node *)cp_decode((((struct cp__c_node *)(a))->right)))))))->key);
  int j = id(a)->right->left->key;
  // CHECK: int j = (((struct cp__c_node *)(((struct node *)cp_decode((((struct cp__c_node *)(((struct node *)cp_decode((((struct cp__c_node *)(id(a)))->right)))))->left)))))->key);
  printf("%d %d %d\n", k, j, calls);
  // OUT: 2 2 1
  free(a); free(b);
  return 0;
}
