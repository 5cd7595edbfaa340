// The planner's decisions, as data: each function's form and why; in
// checked functions the frames, polls and regions versioned by mode, each
// with its reason.  The plugin prints the same plan as compactptr-rewrite.
// REQUIRES: plugin
// RUN: %rewrite --plan -mode=switchable %s -- %cflags | FileCheck %s
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -fplugin-arg-compactptr-plan=- %s 2>&1 | FileCheck %s
// RUN: %rewrite --plan %s -- %cflags | FileCheck --check-prefix=ONLY %s
#include <compactptr.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next; };

static int key_of(struct node *p) { return p->key; }
static int twice(int x) { return 2 * x; }
static struct node *push(struct node *h, int k) {
  struct node *n = malloc(sizeof *n);
  cp_safepoint();
  n->key = k;
  n->next = h;
  return n;
}
static int counted(struct node *p) {
  static int calls;
  calls++;
  return p->key + calls;
}

int main(void) {
  struct node *h = NULL;
  long s = 0;
  int i;
  for (i = 0; i < 100; i++)
    h = push(h, i);
  for (struct node *p = h; p; p = p->next)
    s += key_of(p) + twice(1) + counted(p);
  do {
    s++;
  } while (0);
  return (int)(s & 1);
}
// CHECK: plan: key_of (line 13): dual: depends on a layout and reaches no safepoint
// CHECK-NEXT: plan: twice (line 14): wide: depends on no layout
// CHECK-NEXT: plan: push (line 15): checked: calls 'cp_safepoint', which may reach a safepoint
// CHECK-NEXT: plan:   line 15: frame: h: compact pointers held across a safepoint are roots
// CHECK-NEXT: plan:   line 16: frame: n: compact pointers held across a safepoint are roots
// CHECK-NEXT: plan:   line 18: run of 3 statements versioned: no safepoint can run between them
// CHECK-NEXT: plan: counted (line 22): checked: cannot be dual: static local
// CHECK-NEXT: plan:   line 22: frame: p: compact pointers held across a safepoint are roots
// CHECK-NEXT: plan: main (line 28): checked: main
// CHECK-NEXT: plan:   line 29: frame: h: compact pointers held across a safepoint are roots
// CHECK-NEXT: plan:   line 33: poll at the start of the loop body: a loop of main that may allocate or reach a safepoint
// The second loop calls counted(), a function of this file that may
// allocate: a poll per iteration; its loop variable is a root.
// CHECK-NEXT: plan:   line 34: frame: p: compact pointers held across a safepoint are roots
// CHECK-NEXT: plan:   line 35: poll at the start of the loop body: a loop of main that may allocate or reach a safepoint
// do { } while (0) is not a loop: no poll.
// CHECK-NOT: line 36
// ONLY: plan: key_of (line 13): compact: compact-only mode
