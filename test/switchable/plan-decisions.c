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
// CHECK: plan: key_of (line 13): dual: depends on a layout and reaches no safepoint; closed: nothing it calls can switch
// CHECK-NEXT: plan: twice (line 14): wide: depends on no layout
// An allocation is a safepoint: push is checked.  It saves h and n only on
// the slow paths of its allocation and poll (no frame of slots).
// CHECK-NEXT: plan: push (line 15): checked: allocates a compact object (an allocation is a safepoint)
// The run after the poll is versioned up to its last layout-dependent
// statement: `return n;` runs once, after it.
// CHECK-NEXT: plan:   line 18: run of 2 statements versioned: no safepoint can run between them
// CHECK-NEXT: plan: counted (line 22): checked: cannot be dual: static local
// CHECK-NEXT: plan: main (line 28): checked: main
// main saves h around each call to push: a frame of slots.
// CHECK-NEXT: plan:   line 32: frame slots: h: compact pointers live across a call that may reach a safepoint are saved before it and read back after it
// The first loop allocates only through push, whose allocations are
// safepoints themselves: no polls.
// CHECK-NEXT: plan:   line 32: no poll in the loop: every allocation it reaches is a safepoint of checked code
// The second loop cannot allocate (counted is checked for its static
// local, but allocates nothing): one poll in front, versioned whole.
// CHECK-NEXT: plan:   line 34: loop versioned whole, one poll in front: a loop of main that cannot allocate
// do { } while (0) is not a loop: no poll.
// CHECK-NOT: line 36
// ONLY: plan: key_of (line 13): compact: compact-only mode
