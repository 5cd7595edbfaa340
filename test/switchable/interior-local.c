// A local that holds an address inside a compact object's plain data
// (`int *w = &c->value;`, or assigned later) across allocations: the
// checked function's frame registers it untyped, so the switch moves it
// with the object (the field's compact offset mapped to its wide one), as
// it does pointers to handle fields.  Without that it pointed into the
// released arena after the switch.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 %s -o %t.native && %t.native > %t.native.out
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %t > %t.out && diff %t.native.out %t.out
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 %t > %t.out 2> %t.err
// RUN: diff %t.native.out %t.out && FileCheck %s < %t.err
// CHECK: compactptr: switch to wide mode
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT cell { long pad; int value; double weight; struct cell *next; };

static struct cell *head;

static int grow_and_bump(int n) {
  struct cell *c = malloc(sizeof *c);
  int *w = &c->value;
  double *x;
  c->pad = 1;
  c->value = 77;
  c->weight = 0.5;
  c->next = head;
  head = c;
  x = &c->weight;
  for (int i = 0; i < n; i++) {
    c = malloc(sizeof *c);
    c->pad = i;
    c->value = i;
    c->weight = 0;
    c->next = head;
    head = c;
  }
  *w += 1;
  *x *= 4;
  return *w + (int)*x;
}

int main(void) {
  int r = grow_and_bump(40000);
  long s = 0;
  for (struct cell *c = head; c; c = c->next)
    s += c->value;
  printf("%d %ld\n", r, s);
  return 0;
}
