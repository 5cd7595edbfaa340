// The case that used to crash: main builds a list, starts a worker that
// pushes 2,000,000 nodes onto a list of its own (a compact body: it reaches
// no safepoint), then switches.  The switch runs while the worker has not
// started (it is known from pthread_create, and then starts in wide mode)
// or waits until it has stopped (here: it finishes); the worker's list is
// handed back through a global (a root).  With a worker that never stops
// and a short timeout, the switch refuses, naming the thread and where
// its start routine is.
// RUN: %clang %cflags -O1 -Werror %s -lpthread -o %t.native
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %t.native > %t.native.out
// RUN: env COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t > %t.out 2> %t.err
// RUN: diff %t.native.out %t.out
// RUN: FileCheck %s < %t.err
// RUN: not env COMPACTPTR_SAFEPOINT_TIMEOUT=300 %t forever 2>&1 | FileCheck --check-prefix=REFUSE %s
// CHECK: compactptr: switch to wide mode (cp_switch_to_wide()) after {{[0-9]+}} allocations: moved {{[0-9]+}} objects, {{.*}}verified
// REFUSE: compactptr: cannot switch to wide mode (cp_switch_to_wide()): thread 2 (tid {{[0-9]+}}, '{{[^']*}}', start routine {{.*}}) did not stop at a safepoint within 300 ms (COMPACTPTR_SAFEPOINT_TIMEOUT): it is running (state R) and reached no safepoint: it is in a compact body
#include <compactptr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT node {
  int key;
  struct node *next;
};

static struct node *mine, *theirs;
static volatile int forever, built;

static void *worker(void *arg) {
  struct node *head = NULL, *p;
  long i, sum = 0;
  (void)arg;
  for (i = 0; i < 2000000; i++) {
    struct node *n = malloc(sizeof *n);
    n->key = (int)(i % 1000);
    n->next = head;
    head = n;
  }
  built = 1;
  if (forever)
    for (;;) /* walks its list for ever, reaching no safepoint (the */
      for (p = head; p; p = p->next) /* loop reads nothing another */
        sum += p->key;               /* thread writes: no spin loop) */
  theirs = head;
  return (void *)sum;
}

int main(int argc, char **argv) {
  pthread_t t;
  long sum = 0, n = 0;
  int i;
  struct node *p;
  forever = argc > 1 && !strcmp(argv[1], "forever");
  for (i = 0; i < 1000; i++) {
    p = malloc(sizeof *p);
    p->key = i;
    p->next = mine;
    mine = p;
  }
  pthread_create(&t, NULL, worker, NULL);
  while (forever && !built) {
    /* the refusal case: switch once the worker spins in its body */
  }
  cp_switch_to_wide();
  CP_NATIVE(pthread_join(t, NULL));
  for (p = mine; p; p = p->next)
    sum += p->key;
  for (p = theirs; p; p = p->next, n++)
    sum += p->key;
  printf("%ld nodes, sum %ld\n", n, sum);
  return 0;
}
