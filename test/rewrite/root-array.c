// Heap arrays of compact pointers (malloc(n * sizeof(struct T *))) are root
// arrays: native slots the runtime scans, allocated through the runtime.
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %clang %cflags -Wall -Werror %t.c %runtime -o %t && %t | FileCheck --check-prefix=OUT %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next; };

int main(void) {
  int n = 8;
  struct node **b = malloc(n * sizeof(struct node *));
  // CHECK: struct node **b = ((void *)cp_root_array_alloc((unsigned long)(n)));
  for (int i = 0; i < n; i++) { b[i] = malloc(sizeof(struct node)); b[i]->key = i; }
  b = realloc(b, 2 * n * sizeof(struct node *));
  // CHECK: b = ((void *)cp_root_array_realloc((void **)(b), (unsigned long)(2 * n)));
  printf("%d\n", b[7]->key);
  // OUT: 7
  for (int i = 0; i < n; i++) free(b[i]);
  free(b);
  // CHECK: cp_root_array_free((void **)(b));
  return 0;
}
