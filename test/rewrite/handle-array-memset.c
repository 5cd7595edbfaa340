// `memset(X, 0, sizeof X)` on a handle array field clears it in either
// layout (a null handle is 0, as a null pointer is): the compact form
// clears the handles and measures them.  Other uses of the array as a
// pointer stay refused (diagnostics/handle-array-decay.c).  Before, the
// clear was refused in every mode, wide too.
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %clang %cflags -O2 %s -o %t.native && %t.native > %t.native.out
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co && %t.co | diff %t.native.out -
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=wide %s %runtime -o %t.wide && %t.wide | diff %t.native.out -
// RUN: %clang %cflags -O2 -fplugin=%plugin %s %runtime -o %t.sw && %t.sw | diff %t.native.out -
// RUN: env COMPACTPTR_VERIFY=1 %t.sw switch | diff %t.native.out -
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT sym { struct sym *next; int v; };
struct scope { int depth; struct sym *slots[8]; struct sym *grid[3][4]; long tail; };

static void fill(struct scope *s) {
  for (int i = 0; i < 8; i++) {
    s->slots[i] = malloc(sizeof(struct sym));
    s->slots[i]->v = i;
    s->slots[i]->next = NULL;
  }
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++)
      s->grid[i][j] = s->slots[(i + j) % 8];
  s->tail = 77;
}

static int live(const struct scope *s) {
  int n = 0;
  for (int i = 0; i < 8; i++)
    n += s->slots[i] != NULL;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++)
      n += s->grid[i][j] != NULL;
  return n;
}

int main(int argc, char **argv) {
  struct scope *s = malloc(sizeof *s);
  struct sym *keep[8];
  s->depth = 1;
  fill(s);
  for (int i = 0; i < 8; i++)
    keep[i] = s->slots[i];
  printf("before %d depth %d tail %ld\n", live(s), s->depth, s->tail);
  if (argc > 1)
    cp_switch_to_wide();
  memset(s->slots, 0, sizeof s->slots);
  // CHECK: memset(&(((struct cp__c_scope *)(s))->slots), 0, sizeof((((struct cp__c_scope *)(s))->slots)));
  printf("slots cleared %d depth %d tail %ld\n", live(s), s->depth, s->tail);
  memset(&s->grid, 0, sizeof(s->grid));
  // CHECK: memset(&(((struct cp__c_scope *)(s))->grid), 0, sizeof((((struct cp__c_scope *)(s))->grid)));
  printf("grid cleared %d depth %d tail %ld\n", live(s), s->depth, s->tail);
  for (int i = 0; i < 8; i++)
    free(keep[i]);
  free(s);
  return 0;
}
