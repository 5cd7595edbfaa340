// A statement macro whose argument holds a call that saves roots
// (`STMT(nn = new_node(c););`): the statement runs from the macro's name
// to its `)`, so the call written in its argument lies inside it, and the
// function's frame of slots goes in front of that statement, not after
// it (the saves referred to a frame not yet declared: the generated code
// did not compile).  A block macro with a loop in main (`CLEAR(acc);`)
// gets its poll in front of the whole expansion.  Runs with a switch
// forced while the recursion builds the tree.
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

#define STMT(...) do { __VA_ARGS__ } while (0)
#define CLEAR(v) { int i_; for (i_ = 0; i_ < 4; i_++) (v)[i_] = 0; }

struct CP_COMPACT tn { unsigned k; struct tn *next, *kid; };

static struct tn *new_node(unsigned c) {
  struct tn *p = malloc(sizeof *p);
  p->k = c;
  p->next = p->kid = NULL;
  return p;
}

// CHECK-LABEL: static struct tn *build(unsigned d, unsigned c) {
// CHECK: if (!d) return NULL;
// CHECK-NEXT: { struct cp__slotframe_s {{.*}}STMT(
static struct tn *build(unsigned d, unsigned c) {
  struct tn *nn, *m;
  if (!d) return NULL;
  STMT(nn = new_node(c););
  nn->kid = build(d - 1, c * 2u);
  for (m = nn; m->kid; m = m->kid)
    ;
  STMT(m->next = build(d - 1, c * 2u + 1u););
  return nn;
}

static long sum(const struct tn *t) {
  return t ? t->k + sum(t->next) + sum(t->kid) : 0;
}

// CHECK-LABEL: int main(int argc, char **argv) {
// CHECK: { if (cp__safepoint_due()) {{.*}} CLEAR(acc) };
int main(int argc, char **argv) {
  unsigned d = argc > 1 ? (unsigned)atoi(argv[1]) : 14;
  long acc[4] = {1, 2, 3, 4};
  struct tn *t = build(d, 1), *x;
  CLEAR(acc);
  for (x = t; x; x = x->kid)
    acc[x->k & 3] += x->k;
  printf("%ld %ld %ld %ld %ld\n", sum(t), acc[0], acc[1], acc[2], acc[3]);
  return 0;
}
