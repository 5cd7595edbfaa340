// The program's own thread-exit destructors (a pthread key's, a tss's) run
// after the runtime's exit hook in glibc's first round, since the
// runtime's key is made first.  A destructor that walks and updates a
// global compact list while main switches ran unknown to the switch: a
// wrong total with exit 0, or "a compact pointer was used after the switch"
// (exit 70), in most runs.  The hook now keeps the thread known through
// that round, so the switch stops the destructor at a safepoint and
// translates its roots.
// RUN: %clang %cflags -O1 -Werror %s -lpthread -o %t.native
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t -lpthread
// RUN: %t.native > %t.native.out
// RUN: env COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t > %t.out 2> %t.err
// RUN: diff %t.native.out %t.out
// RUN: FileCheck %s < %t.err
// RUN: env COMPACTPTR_VERIFY=1 %t | diff %t.native.out -
// RUN: env COMPACTPTR_VERIFY=1 %t | diff %t.native.out -
// CHECK: compactptr: switch to wide mode (cp_switch_to_wide()) after {{[0-9]+}} allocations: {{.*}}verified
#include <compactptr.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  int key;
  struct node *next;
};

enum { ROUNDS = 3000, NODES = 1000 };
static struct node *shared;
static pthread_key_t key;
static atomic_int in_destructor;
static int one = 1;

static void destructor(void *v) {
  (void)v;
  atomic_store(&in_destructor, 1);
  for (int r = 0; r < ROUNDS; r++)
    for (struct node *p = shared; p; p = p->next)
      p->key++;
}

static void *work(void *a) {
  (void)a;
  pthread_setspecific(key, &one);
  return NULL;
}

int main(void) {
  for (int i = 0; i < NODES; i++) {
    struct node *n = malloc(sizeof *n);
    n->key = 0;
    n->next = shared;
    shared = n;
  }
  pthread_key_create(&key, destructor);
  pthread_t t;
  pthread_create(&t, NULL, work, NULL);
  while (!atomic_load(&in_destructor))
    ;
  cp_switch_to_wide(); /* while the destructor walks the list */
  pthread_join(t, NULL);
  long s = 0;
  for (struct node *p = shared; p; p = p->next)
    s += p->key;
  printf("shared %ld of %ld\n", s, (long)ROUNDS * NODES);
  return 0;
}
