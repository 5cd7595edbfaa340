// A safepoint reached under a compact body is not legal: the dual
// function's dispatch counts the compact body's depth, cp_safepoint() in a
// callback reached through a function pointer defers (counted by
// COMPACTPTR_STATS), and the switch runs later at a legal safepoint (the
// poll in main's loop, or the next allocation).  The callback is defined
// in another translation unit (here: this file built with -DCALLBACK_TU),
// where the plugin cannot see it; one defined in the caller's file makes
// the caller checked (switchable/indirect-call-targets.c).
// REQUIRES: plugin
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin -DCALLBACK_TU -c %s -o %t.cb.o
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %t.cb.o %runtime -o %t
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 %t > %t.out 2> %t.err
// RUN: FileCheck %s < %t.err
// RUN: FileCheck --check-prefix=OUT %s < %t.out
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next; };

#ifdef CALLBACK_TU
int deferred_seen;
void poll(void) {
  int before = cp_is_compact();
  cp_safepoint(); /* under a compact body: defers */
  if (before && !cp_is_compact())
    printf("switched under a compact body\n");
  if (before)
    deferred_seen = 1;
}
#else
extern int deferred_seen;
void poll(void);

/* An allocation site is a safepoint: checked. */
static struct node *push(struct node *head, int k) {
  struct node *n = malloc(sizeof(struct node));
  n->key = k;
  n->next = head;
  return n;
}

/* Dual: layout-dependent, reaches no safepoint the plugin can see (the
 * call through a pointer runs under its compact body). */
static void touch_and_call(struct node *head, void (*cb)(void)) {
  head->key += 1;
  cb();
  head->key -= 1;
}

int main(void) {
  struct node *h = NULL;
  long s = 0;
  int i;
  for (i = 0; i < 100000; i++) {
    h = push(h, i);
    touch_and_call(h, poll);
  }
  for (; h; h = h->next)
    s += h->key;
  printf("sum %ld %s\n", s, cp_is_compact() ? "compact" : "wide");
  return deferred_seen ? 0 : 1;
}
#endif
// CHECK: compactptr: switch to wide mode (high-water mark)
// CHECK: safepoints deferred under compact bodies: {{[1-9][0-9]*}}
// OUT-NOT: switched under a compact body
// OUT: sum 4999950000 wide
