// The rewritten source is plain C over <compactptr.h>: gcc builds it.
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: gcc -std=gnu11 %cflags -Wall -Wextra -Werror %t.c %runtime -o %t && %t | FileCheck %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next; struct node *kids[2]; };

int main(void) {
  struct node *a = malloc(sizeof *a), *b = malloc(sizeof *b);
  a->key = 1; b->key = 2; a->next = b; b->next = NULL;
  a->kids[1] = b;
  struct node v = *a;
  *b = v;
  b->next = NULL;
  printf("%d %d %d\n", a->next->key, a->kids[1]->key, v.next == b);
  // CHECK: 1 1 1
  free(a); free(b);
  return 0;
}
