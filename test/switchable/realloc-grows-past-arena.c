// An array of nodes grown by realloc (doubling) until one new array needs
// more than the compact arena has left: the realloc is a safepoint, so the
// switch runs there, with the old array as a root, and the array grows in
// wide mode.  Before, the program stopped with exit 70 ("the compact arena
// is exhausted ... before a switch to wide mode became pending"), since
// only fresh allocations, not reallocs, ran the switch when the arena
// could not serve them.
// REQUIRES: plugin
// RUN: %clang %cflags -O2 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %clang %cflags -O2 %s -o %t.native
// RUN: %t.native | FileCheck %s
// RUN: %t | FileCheck %s
// RUN: env COMPACTPTR_ARENA_LIMIT=4M COMPACTPTR_STATS=1 %t 2> %t.err | FileCheck %s
// RUN: FileCheck --check-prefix=STATS %s < %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=4M COMPACTPTR_VERIFY=1 %t | FileCheck %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  int key;
  struct node *next;
};

int main(void) {
  int cap = 1024, n = 0;
  struct node *v = calloc(cap, sizeof(struct node));
  for (int i = 0; i < 400000; i++) {
    if (n == cap) {
      cap *= 2;
      v = realloc(v, cap * sizeof(struct node));
    }
    v[n++].key = i;
  }
  for (int i = 0; i < n; i++)
    v[i].next = i ? &v[i - 1] : NULL;
  long s = 0;
  for (struct node *p = &v[n - 1]; p; p = p->next)
    s += p->key;
  free(v);
  printf("n=%d s=%ld\n", n, s);
  return 0;
}
// CHECK: n=400000 s=79999800000
// STATS: compactptr: switch to wide mode (high-water mark)
