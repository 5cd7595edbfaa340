// The compact body of a dual function sees the macros its function saw: a
// unity build or an X-macro file redefines or undefines a macro after a
// function that uses it, and a compact body printed further down would
// compute with the new definition (a silent wrong result) or not compile.
// Compact bodies of dual functions defined later are declared in front of
// the clone that calls them (even and odd call each other).
// REQUIRES: plugin
// RUN: %clang %cflags -O2 %s -o %t.native && %t.native > %t.expected
// RUN: %clang %cflags -O2 -Wall -Werror -fplugin=%plugin %s %runtime -o %t && %t | diff %t.expected -
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co && %t.co | diff %t.expected -
// RUN: %t | FileCheck %s
// CHECK: 10 3 -5 6
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next; };

#define SCALE 2
static int weigh(struct node *p) { return p->key * SCALE; }
#undef SCALE
#define SCALE 3

#define BIAS 1
static int odd(struct node *p, int n);
static int even(struct node *p, int n) { return n == 0 ? p->key + BIAS : odd(p->next ? p->next : p, n - 1); }
#undef BIAS
static int odd(struct node *p, int n) { return n == 0 ? -p->key : even(p, n - 1); }

int main(void) {
  struct node *n = malloc(sizeof *n);
  n->key = 5;
  n->next = NULL;
  printf("%d %d %d %d\n", weigh(n), SCALE, even(n, 3), even(n, 4));
  return 0;
}
