// A cleanup function (`__attribute__((cleanup(f)))`) runs when its
// variable's scope ends: a call no call expression shows.  One that may
// reach a safepoint (here it refills a pool of nodes) is warned, and the
// function holding the variable is one that reaches a safepoint: its
// callers keep their roots in frames, and it is not versioned by mode as a
// run without safepoints.  Before, the caller's list pointed into the
// released arena after a switch in the cleanup (exit 70), and the
// function read the wide heap in the compact layout after it (wrong sums,
// exit 0).
// REQUIRES: plugin
// RUN: %clang %cflags -O1 %s -o %t.native && %t.native > %t.expect
// RUN: %clang %cflags -O1 -fplugin=%plugin %s %runtime -o %t 2> %t.warnings
// RUN: FileCheck --check-prefix=WARN %s < %t.warnings
// RUN: env COMPACTPTR_ARENA_LIMIT=512K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: grep -q 'switch to wide mode' %t.err
// RUN: FileCheck %s < %t.expect
// A cleanup function of another file is code the plugin cannot see: its
// variable's function may reach a safepoint there (before: exit 70).
// RUN: %clang %cflags -O1 -fplugin=%plugin -DREFILL_ONLY -c %s -o %t.refill.o
// RUN: %clang %cflags -O1 -fplugin=%plugin -DREFILL_ELSEWHERE %s %t.refill.o %runtime -o %t.two
// RUN: env COMPACTPTR_ARENA_LIMIT=512K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t.two 2> %t.two.err | diff %t.expect -
// RUN: grep -q 'switch to wide mode' %t.two.err
// WARN: warning: 'refill' may reach a safepoint (it allocates compact objects, or calls what does), and it runs as the cleanup of 'ticket' when its scope ends, where no roots are saved
// CHECK: sum 7999200020000 pool 20000
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  struct node *next;
  long v;
};

#ifdef REFILL_ONLY
extern struct node *pool;
extern long pooled;
#else
struct node *pool;
long pooled;
#endif

#ifdef REFILL_ELSEWHERE
void refill(int *ticket);
#else
/* Takes a ticket back: the pool grows by a node each time. */
void refill(int *ticket) {
  struct node *n = malloc(sizeof *n);
  n->v = *ticket;
  n->next = pool;
  pool = n;
  pooled++;
}
#endif
#ifndef REFILL_ONLY

/* Reads the list before the cleanup runs (a compact pointer of its own
 * read after it is what the warning is about), and the pool, a global,
 * after it: in the layout of the mode the switch left. */
static long weigh(const struct node *list, int i) {
  long w;
  {
    int ticket __attribute__((cleanup(refill))) = i;
    w = list->v + list->next->v;
  }
  return w + (pool->v == i);
}

int main(void) {
  struct node *list = NULL;
  for (long i = 0; i < 20000; i++) {
    struct node *n = malloc(sizeof *n);
    n->v = i;
    n->next = list;
    list = n;
  }
  long sum = 0;
  for (int i = 0; i < 20000; i++) {
    sum += weigh(list, i) * i; // list: a root of main's frame
  }
  printf("sum %ld pool %ld\n", sum, pooled);
  return 0;
}
#endif
