// A call in the arguments of another (`take(mk(i))`) while main holds a
// compact pointer in its frame of slots: the outer call saves `keep`
// before its arguments run, so the inner call must leave the slot set when
// it reads `keep` back (it cleared it: the outer call then read back null,
// and while it ran `keep` was no root).  Both calls allocate, so the switch
// happens inside one or the other.
// RUN: %rewrite -mode=switchable %s -- %cflags | FileCheck %s
// RUN: %clang %cflags -O1 %s -o %t.native && %t.native > %t.expected
// RUN: %clang %cflags -O1 -Wall -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %t | diff %t.expected -
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_HIGH_WATER=10 COMPACTPTR_STATS=1 %t 2>%t.stats | diff %t.expected -
// RUN: FileCheck --check-prefix=STATS %s < %t.stats
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_HIGH_WATER=10 COMPACTPTR_VERIFY=1 %t | diff %t.expected -
// STATS: compactptr: switch to wide mode (high-water mark) after {{[0-9]+}} allocations: moved {{[0-9]+}} objects
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { long v; struct node *next; };

static struct node *mk(long v) {
  struct node *n = malloc(sizeof *n);
  n->v = v;
  n->next = NULL;
  return n;
}

static struct node *chain;

// Allocates too: a switch may come while it runs, with `keep` only in
// main's slot.
static long take(struct node *n) {
  struct node *pad = mk(n->v * 2);
  pad->next = chain;
  chain = pad;
  n->next = chain;
  return n->v + pad->v;
}

// The inner read back keeps the slot; the outer one clears it.
// CHECK-LABEL: int main(void) {
// CHECK: cp__slotframe.s[0] = keep, take({{.*}}cp__slotframe.s[0] = keep, mk(i)); keep = cp__slotframe.s[0];  cp__r{{[0-9]+}}; }))); keep = cp__slotframe.s[0]; cp__slotframe.s[0] = 0;
int main(void) {
  struct node *keep = mk(7);
  long sum = 0;
  for (long i = 0; i < 40000; i++)
    sum += take(mk(i));
  long n = 0;
  for (struct node *c = chain; c; c = c->next)
    n++;
  printf("%ld %ld %ld\n", sum, keep ? keep->v : -1L, n);
  return 0;
}
