// Pointer arithmetic done in integers -- mcf rebases the links of its arc
// array after growing it: off = (size_t)new - (size_t)old;
// p->f = (arc_t *)((size_t)p->f + off) -- is warned at every cast: a
// switch between the casts (at a call, at a poll the plugin puts in a
// loop, at a call the right-hand side of an assignment makes before its
// left) adds an offset of the compact layout to a wide address, and the
// plugin cannot show that none comes between.  A pointer field made an
// integer and back is said to be that, not "an integer read from field
// ..., so after the switch the field names nothing" (which it does not:
// the field holds a pointer).  The program is right where the switch
// comes at the realloc itself.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -O1 %s -o %t.native && %t.native > %t.expect
// RUN: %clang %cflags -O1 -fplugin=%plugin %s %runtime -o %t 2> /dev/null
// RUN: env COMPACTPTR_ARENA_LIMIT=4M COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: grep -q 'switch to wide mode' %t.err
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
  a = realloc(arcs, 4 * n * sizeof *arcs); // the switch comes here
  off = (size_t)a - (size_t)arcs; // expected-warning 2 {{compact pointer to 'struct arc' cast to an integer; the value does not survive the switch to wide mode}}
  arcs = a;
  for (i = 0; i < 16; i++)
    if (nodes[i].firstout)
      nodes[i].firstout = (arc_t *)((size_t)nodes[i].firstout + off); // expected-warning {{integer cast to a compact pointer to 'struct arc'; it must hold the address of a heap object}} expected-warning {{compact pointer to 'struct arc' cast to an integer}}
  for (a = arcs; a < arcs + m; a++)
    if (a->nextout)
      a->nextout = (arc_t *)((size_t)a->nextout + off); // expected-warning {{integer cast to a compact pointer to 'struct arc'; it must hold}} expected-warning {{compact pointer to 'struct arc' cast to an integer}}
  for (i = 0; i < 16; i++)
    for (a = nodes[i].firstout; a; a = a->nextout)
      s += a->cost;
  printf("sum %ld\n", s);
  return 0;
}
