// An allocation site is a safepoint: a program that builds its whole heap in
// one call, or whose main has no polls (auto-safepoints off), still switches
// at an allocation.  So does a builder that allocates through a function
// pointer to a function of its own file: the call may reach what that
// function reaches, so the builder is checked.  Only when every allocation
// after the high-water mark happens under a compact body (here: through a
// function pointer to an allocator in another translation unit, called by
// a dual function) is no safepoint legal, and then the program stops with
// the runtime's message and a non-zero exit.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin -DPUSHER_TU -c %s -o %t.pusher.o
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin -DUNDER_COMPACT_BODY %s %t.pusher.o %runtime -o %t.under
// RUN: env COMPACTPTR_ARENA_LIMIT=256K not %t.under 2>&1 | FileCheck --check-prefix=ERR %s
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin -DTHROUGH_POINTER %s %t.pusher.o %runtime -o %t.ptr
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 %t.ptr 2>&1 | FileCheck --check-prefix=OK %s
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin -DBUILD_IN_ONE_CALL %s %t.pusher.o %runtime -o %t.one
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 %t.one 2>&1 | FileCheck --check-prefix=OK %s
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin -fplugin-arg-compactptr-auto-safepoints=off %s %t.pusher.o %runtime -o %t.off
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_STATS=1 %t.off 2>&1 | FileCheck --check-prefix=OK %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next; };

#ifdef PUSHER_TU
struct node *push_elsewhere(struct node *head, int k) {
  struct node *n = malloc(sizeof(struct node));
  n->key = k;
  n->next = head;
  return n;
}
#else
struct node *push_elsewhere(struct node *head, int k);

static struct node *push(struct node *head, int k) {
  struct node *n = malloc(sizeof(struct node));
  n->key = k;
  n->next = head;
  return n;
}

/* Checked: it calls push, which allocates. */
static struct node *build(int n) {
  struct node *h = NULL;
  for (int i = 0; i < n; i++)
    h = push(h, i);
  return h;
}

static struct node *(*pusher)(struct node *, int);
/* Layout-dependent.  Through a pointer to push it is checked; through a
 * pointer to push_elsewhere, which the plugin cannot see here, it is dual,
 * and the allocation runs under its compact body, where no safepoint is
 * legal. */
static struct node *build_through(int n) {
  struct node *h = NULL;
  for (int i = 0; i < n; i++) {
    h = pusher(h, i);
    h->key += 0;
  }
  return h;
}

int main(void) {
  struct node *h = NULL;
  long s = 0;
#if defined(UNDER_COMPACT_BODY)
  pusher = push_elsewhere;
  h = build_through(100000);
#elif defined(THROUGH_POINTER)
  pusher = push;
  h = build_through(100000);
#elif defined(BUILD_IN_ONE_CALL)
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
#endif
// ERR: compactptr: the compact arena is exhausted (262144 bytes) while a switch to wide mode is pending
// ERR-NOT: sum
// OK: compactptr: switch to wide mode
// OK: sum 4999950000
