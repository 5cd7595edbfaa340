// A thread made by thrd_create is known to the runtime from its creation,
// as one made by pthread_create is (<compactptr.h> gives thrd_create the
// assembler name of cp_thrd_create).  This one never allocates: it waits
// for lists main hands over through a volatile slot, with thrd_yield (a
// spin loop: it polls), and relinks their nodes.  Before, the runtime did
// not know it, a switch that main's allocations started did not wait for
// it, and it went on with pointers into the released arena (exit 70, 20
// runs of 20).  Its int result comes back through thrd_join.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 -Werror %s -lpthread -o %t.native
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t -lpthread
// RUN: %t.native > %t.expect
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t > %t.out 2> %t.err
// RUN: diff %t.expect %t.out
// RUN: FileCheck %s < %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=1M %t | diff %t.expect -
// CHECK: compactptr: switch to wide mode {{.*}} verified
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <threads.h>

struct CP_COMPACT node {
  long key;
  struct node *next;
};

static struct node *volatile handed;
static volatile int ready, taken;

static int relinker(void *arg) {
  struct node *all = NULL, *l, *next;
  long s = 0;
  int round;
  (void)arg;
  for (round = 0; round < 20; round++) {
    while (!ready)
      thrd_yield();
    l = handed;
    ready = 0;
    for (; l; l = next) {
      next = l->next;
      l->next = all;
      all = l;
    }
    taken = 1;
  }
  for (l = all; l; l = l->next)
    s += l->key;
  return (int)(s % 1000003);
}

int main(void) {
  thrd_t t;
  int round, result;
  long i;
  if (thrd_create(&t, relinker, NULL) != thrd_success)
    return 1;
  for (round = 0; round < 20; round++) {
    struct node *l = NULL;
    for (i = 0; i < 3000; i++) {
      struct node *n = malloc(sizeof *n);
      n->key = round * 3000 + i;
      n->next = l;
      l = n;
    }
    taken = 0;
    handed = l;
    ready = 1;
    while (!taken)
      thrd_yield();
  }
  thrd_join(t, &result);
  printf("result %d\n", result);
  return 0;
}
