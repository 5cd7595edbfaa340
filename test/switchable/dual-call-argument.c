// Switchable mode: a call to a function with a compact body of its own
// (`setb__cp`) is printed by mode, and the mode is tested before its
// arguments run.  An argument that may switch -- a call that allocates, an
// allocation macro, a statement expression that polls -- goes first, into
// a temporary: evaluated inside, a switch left the compact body called on
// wide objects (wrong sums, exit 0, nothing from COMPACTPTR_VERIFY).  Also
// an allocation macro in a function whose frame of slots is placed after
// it (the frame must come first).
// REQUIRES: plugin
// RUN: %clang %cflags -O2 %s -o %t.native && %t.native > %t.native.out
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=switchable %s %runtime -o %t
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.native.out -
// RUN: FileCheck %s < %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_VERIFY=1 %t | diff %t.native.out -
// CHECK: compactptr: switch to wide mode
// CHECK-SAME: verified
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

#define NEW(T) ({ T *p_ = calloc(1, sizeof(T)); if (!p_) abort(); p_; })

struct CP_COMPACT rec {
  int a;
  struct rec *p;
  long b;
};

enum { M = 30000 };
static struct rec *arr[4][M];

static struct rec *setb(struct rec *r, long v) {
  r->b = v;
  return r;
}
static struct rec *mk(void) { return calloc(1, sizeof(struct rec)); }

static void bump(struct rec *x) {
  x->b++;
  cp_safepoint();
}
static struct rec *child_of(struct rec *parent) {
  struct rec *t = NEW(struct rec);
  bump(t);
  t->p = parent;
  return t;
}

int main(void) {
  for (int i = 0; i < M; i++) {
    arr[0][i] = setb(mk(), i);
    arr[1][i] = setb(NEW(struct rec), 2 * i);
    arr[2][i] = mk();
    setb(arr[2][i], ({ cp_safepoint(); 3 * i; }));
    arr[3][i] = child_of(i ? arr[3][i - 1] : NULL);
  }
  long s = 0;
  for (int k = 0; k < 4; k++)
    for (int i = 0; i < M; i++)
      s += arr[k][i]->b * (i % 7 + 1) + arr[k][i]->a + (arr[k][i]->p ? arr[k][i]->p->b : 3);
  printf("%ld\n", s);
  return 0;
}
