// Pointer arithmetic done in integers and made a pointer again before any
// call -- mcf rebases the links of its arc array after growing it:
//   off = (size_t)new - (size_t)old;  p->f = (arc_t *)((size_t)p->f + off);
// -- holds addresses of the moment only: the switch, which runs in calls,
// cannot move an object between the casts.  Such casts are not warned
// (before: 6 integer-cast warnings here, 12 in mcf, and a runtime line at
// every switch listing them), and the program is right across a switch at
// the realloc.  An integer that may outlive a call, comes from a
// parameter or a global, or carries a tag is warned as before.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -O1 -DRUN %s -o %t.native && %t.native > %t.expect
// RUN: %clang %cflags -O1 -DRUN -fplugin=%plugin %s %runtime -o %t 2> %t.warnings
// RUN: not grep warning: %t.warnings
// RUN: env COMPACTPTR_ARENA_LIMIT=4M COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: grep -q 'switch to wide mode' %t.err
// RUN: not grep 'cast to integers' %t.err
// RUN: FileCheck %s < %t.expect
// CHECK: sum 4999950000
#include <compactptr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct arc arc_t;
struct CP_COMPACT arc {
  arc_t *nextout;
  long cost;
};
struct CP_COMPACT node {
  arc_t *firstout;
  long id;
};

#ifndef RUN
uintptr_t saved;

// A call between the difference and its use: the switch may come there.
arc_t *rebase_after_call(arc_t *a, arc_t *old, arc_t *p) {
  size_t off = (size_t)a - (size_t)old; // expected-warning 2 {{compact pointer to 'struct arc' cast to an integer; the value does not survive the switch to wide mode}}
  free(malloc(sizeof(struct node)));
  return (arc_t *)((size_t)p + off); // expected-warning {{integer cast to a compact pointer to 'struct arc'; it must hold the address of a heap object}}
}

// An offset from the caller was taken before the call.
arc_t *rebase_param(arc_t *p, size_t off) {
  return (arc_t *)((size_t)p + off); // expected-warning {{integer cast to a compact pointer to 'struct arc'}}
}

// Kept in a global, read back later.
void remember(arc_t *p) { saved = (uintptr_t)p; } // expected-warning {{compact pointer to 'struct arc' cast to an integer}}
arc_t *recall(void) { return (arc_t *)(saved + 0); } // expected-warning {{integer cast to a compact pointer to 'struct arc'}}

// A tag in the low bits is no arithmetic on the address.
arc_t *tagged(arc_t *p) { return (arc_t *)((uintptr_t)p | 1); } // expected-warning {{integer cast to a compact pointer}} expected-warning {{compact pointer to 'struct arc' cast to an integer}}
#endif

int main(void) {
  long n = 100000, m, i, s = 0;
  struct node *nodes = calloc(16, sizeof *nodes);
  arc_t *arcs = calloc(n, sizeof *arcs), *a;
  size_t off;
  for (m = 0; m < n; m++) {
    a = arcs + m;
    a->cost = m;
    a->nextout = nodes[m % 16].firstout;
    nodes[m % 16].firstout = a;
  }
  a = realloc(arcs, 4 * n * sizeof *arcs); // the switch may come here
  off = (size_t)a - (size_t)arcs;
  arcs = a;
  for (i = 0; i < 16; i++)
    if (nodes[i].firstout)
      nodes[i].firstout = (arc_t *)((size_t)nodes[i].firstout + off);
  for (a = arcs; a < arcs + m; a++)
    if (a->nextout)
      a->nextout = (arc_t *)((size_t)a->nextout + off);
  for (i = 0; i < 16; i++)
    for (a = nodes[i].firstout; a; a = a->nextout)
      s += a->cost;
  printf("sum %ld\n", s);
  return 0;
}
