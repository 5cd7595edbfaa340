// malloc, calloc, realloc and free of compact types become typed runtime
// calls, whatever the spelling of the size and the casts around them
// (the sizeof may be any factor of a product; the factors multiply with
// an overflow check, as calloc's own).
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %clang %cflags -Wall -Werror %t.c %runtime -o %t && %t | FileCheck --check-prefix=OUT %s
// RUN: not %t 0x5555555555555556 2>&1 | FileCheck --check-prefix=OVERFLOW %s
// OVERFLOW: compactptr: array of 18446744073709551615 'node' objects: size overflows
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct CP_COMPACT node { int key; struct node *next; } node_t;

int main(int argc, char **argv) {
  int n = 5;
  if (argc > 1) { /* a count whose product overflows: stopped, never wrapped */
    unsigned long huge = strtoul(argv[1], 0, 0);
    struct node *o = calloc(huge, 3 * sizeof *o);
    printf("allocated %p\n", (void *)o);
    return 0;
  }
  node_t *a = malloc(sizeof(node_t));
  // CHECK: node_t *a = cp_alloc(&cp__desc_node);
  struct node *b = (struct node *)malloc(sizeof *b);
  // CHECK: struct node *b = (struct node *)cp_alloc(&cp__desc_node);
  struct node *c = calloc(n, sizeof(struct node));
  // CHECK: struct node *c = cp_alloc_array(&cp__desc_node, (unsigned long)(n));
  struct node *d = malloc(sizeof(struct node) * n);
  // CHECK: struct node *d = cp_alloc_array(&cp__desc_node, (unsigned long)(n));
  d = (node_t *)realloc(d, 2 * n * sizeof *d);
  // CHECK: d = (node_t *)cp_realloc_array(&cp__desc_node, d, (unsigned long)(2 * n));
  struct node *e = malloc(sizeof(struct node) * 2 * n);
  // CHECK: struct node *e = cp_alloc_array(&cp__desc_node, cp__count_mul((unsigned long)(2), (unsigned long)(n)));
  struct node *f = calloc(n, 3 * sizeof *f);
  // CHECK: struct node *f = cp_alloc_array(&cp__desc_node, cp__count_mul((unsigned long)(n), (unsigned long)(3)));
  struct node **g = malloc(sizeof(struct node *) * n * 2);
  // CHECK: cp_handle_t *g = ((void *)malloc(cp__count_mul((unsigned long)(n), (unsigned long)(2)) * sizeof(cp_handle_t)));
  e[2 * n - 1].key = 5; f[3 * n - 1].key = 6; g[2 * n - 1] = e;
  printf("%d %d %d\n", e[2 * n - 1].key, f[3 * n - 1].key, g[2 * n - 1]->key);
  // OUT: 5 6 0
  free(e); free(f); free(g);
  void *raw = malloc(64);
  // CHECK: void *raw = malloc(64);
  a->key = 1; b->key = 2; c[4].key = 3; d[9].key = 4;
  printf("%d %d %d %d %d\n", a->key, b->key, c[4].key, d[9].key, c[0].next == NULL);
  // OUT: 1 2 3 4 1
  free(a); free(b); free(c); free(d); free(raw);
  // CHECK: cp_free(a); cp_free(b); cp_free(c); cp_free(d); free(raw);
  return 0;
}
