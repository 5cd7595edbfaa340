// When the arena fills up and no legal safepoint is reached -- all the
// allocation happens inside one compact body, or main's loops have no poll
// because auto-safepoints are off -- the program stops with the runtime's
// message and a non-zero exit; with the automatic polls on, the same
// program switches and finishes.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin -DBUILD_IN_ONE_CALL %s %runtime -o %t.one
// RUN: env COMPACTPTR_ARENA_LIMIT=256K not %t.one 2>&1 | FileCheck --check-prefix=ERR %s
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin -fplugin-arg-compactptr-auto-safepoints=off %s %runtime -o %t.off
// RUN: env COMPACTPTR_ARENA_LIMIT=256K not %t.off 2>&1 | FileCheck --check-prefix=ERR %s
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t.on
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_STATS=1 %t.on 2>&1 | FileCheck --check-prefix=OK %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next; };

static struct node *push(struct node *head, int k) {
  struct node *n = malloc(sizeof(struct node));
  n->key = k;
  n->next = head;
  return n;
}

/* Dual: its whole loop runs in one compact body. */
static struct node *build(int n) {
  struct node *h = NULL;
  for (int i = 0; i < n; i++)
    h = push(h, i);
  return h;
}

int main(void) {
  struct node *h = NULL;
  long s = 0;
#ifdef BUILD_IN_ONE_CALL
  h = build(100000);
#else
  for (int i = 0; i < 100000; i++)
    h = push(h, i);
#endif
  for (; h; h = h->next)
    s += h->key;
  printf("sum %ld\n", s);
  return 0;
}
// ERR: compactptr: the compact arena is exhausted (262144 bytes) while a switch to wide mode is pending: the switch became pending {{[0-9]+}} allocations ago and no safepoint was reached since; add a cp_safepoint() call in a loop that allocates (outside compact bodies)
// ERR-NOT: sum
// OK: compactptr: switch to wide mode
// OK: sum 4999950000
