// A heap array of atomic compact pointers (`struct node *_Atomic *slots`,
// a table of published links read with atomic_load, as lock-free code
// keeps them) is a root array like one of plain compact pointers:
// allocated and grown through the runtime, its elements translated by the
// switch.  Before, its calloc and realloc stayed libc's, the switch did
// not see the elements, and the first load after it read the released
// arena (exit 70, 5 of 5 runs).
// REQUIRES: plugin
// RUN: %clang %cflags -O2 %s -o %t.native
// RUN: %clang %cflags -O2 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %t.native > %t.expect
// RUN: %t | diff %t.expect -
// RUN: env COMPACTPTR_ARENA_LIMIT=512K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: FileCheck %s < %t.err
// CHECK: switch to wide mode {{.*}} verified
#include <compactptr.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  struct node *next;
  long v;
};

static struct node *_Atomic *slots;
static size_t nslots;

static void publish(size_t i, long v) {
  if (i >= nslots) {
    size_t n = nslots ? 2 * nslots : 8;
    slots = realloc(slots, n * sizeof *slots);
    if (!slots)
      exit(2);
    for (size_t k = nslots; k < n; k++)
      atomic_init(&slots[k], NULL);
    nslots = n;
  }
  struct node *n = malloc(sizeof *n);
  n->v = v;
  n->next = atomic_load_explicit(&slots[i], memory_order_relaxed);
  atomic_store_explicit(&slots[i], n, memory_order_release);
}

int main(void) {
  slots = calloc(4, sizeof *slots);
  nslots = 4;
  for (long r = 0; r < 40000; r++)
    publish((size_t)(r * 7 % 301), r);
  long s = 0, c = 0;
  for (size_t i = 0; i < nslots; i++)
    for (struct node *n = atomic_load_explicit(&slots[i], memory_order_acquire); n; n = n->next)
      s += n->v * (long)(i + 1), c++;
  printf("%ld nodes, %zu slots, sum %ld\n", c, nslots, s);
  free(slots);
  return 0;
}
