// Threads that wait for each other in spin loops while another thread
// switches: a start gate on an atomic flag (touching no compact object), a
// volatile flag with sched_yield, a lock-free consumer that grabs batches
// with atomic_exchange and keeps them on a list of its own (a root across
// its poll), a spin lock of __sync builtins with a pause, and main waiting
// for the workers on an atomic counter.  Each such loop polls at every
// iteration, so the thread stops there for the switch: before, a spinning
// thread reached no safepoint and the program stopped after
// COMPACTPTR_SAFEPOINT_TIMEOUT, while the thread it waited for was parked.
// Without auto-safepoints the loops are plain again (the user's
// cp_safepoint() calls are the only polls).
// REQUIRES: plugin
// RUN: %clang %cflags -O1 -Werror %s -lpthread -o %t.native
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %t.native > %t.expect
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 COMPACTPTR_SAFEPOINT_TIMEOUT=20000 %t 2> %t.err | diff %t.expect -
// RUN: grep -q 'switch to wide mode.*verified' %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_SAFEPOINT_TIMEOUT=20000 %t | diff %t.expect -
// RUN: FileCheck --check-prefix=OUT %s < %t.expect
// RUN: %rewrite --plan -mode=switchable %s -- %cflags | FileCheck --check-prefix=PLAN %s
// RUN: %rewrite --plan -mode=switchable -auto-safepoints=false %s -- %cflags | FileCheck --check-prefix=OFF %s
// OUT: gate 1 yield 1
// OUT: consumed 60000 sum 1799970000
// OUT: shared 40000 sum 799980000
// PLAN-LABEL: plan: gate_waiter ({{.*}}): checked: waits for other threads in a spin loop (line {{[0-9]+}}), which polls for the switch
// PLAN: line {{[0-9]+}}: poll at the start of the loop body: a spin loop
// PLAN-LABEL: plan: yield_waiter
// PLAN: poll at the start of the loop body: a spin loop
// PLAN-LABEL: plan: consumer
// PLAN: line {{[0-9]+}}: poll at the start of the loop body: a spin loop
// PLAN: line {{[0-9]+}}: loop versioned whole
// PLAN-LABEL: plan: lock
// PLAN: poll at the start of the loop body: a spin loop
// PLAN: plan: unlock ({{.*}}): wide: depends on no layout
// PLAN-LABEL: plan: main
// PLAN: poll at the start of the loop body: a spin loop
// OFF-NOT: spin loop
#include <compactptr.h>
#include <immintrin.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  long key;
  struct node *next;
};

static atomic_int go, started, done;
#ifdef RACE_FREE // spin-loops-tsan.test: to TSan a volatile flag is a race
static atomic_int yield_go;
#else
static volatile int yield_go;
#endif
static long gate_seen, yield_seen;

static _Atomic(struct node *) top; // the lock-free stack main pushes onto
static struct node *consumed;      // the consumer's list, handed back
static long consumed_count;

static int lk;              // the spin lock (__sync builtins)
static struct node *shared; // the list it protects

static void *gate_waiter(void *arg) {
  (void)arg;
  atomic_fetch_add(&started, 1);
  while (!atomic_load_explicit(&go, memory_order_acquire))
    ;
  gate_seen = 1;
  return NULL;
}

static void *yield_waiter(void *arg) {
  (void)arg;
  atomic_fetch_add(&started, 1);
  while (!yield_go)
    sched_yield();
  yield_seen = 1;
  return NULL;
}

static void *consumer(void *arg) {
  struct node *mine = NULL;
  long n = 0;
  (void)arg;
  atomic_fetch_add(&started, 1);
  for (;;) {
    struct node *batch = atomic_exchange(&top, NULL);
    if (!batch) {
      if (atomic_load(&done) && !atomic_load(&top))
        break;
      _mm_pause();
      continue;
    }
    while (batch) {
      struct node *next = batch->next;
      batch->next = mine;
      mine = batch;
      batch = next;
      n++;
    }
  }
  consumed = mine;
  consumed_count = n;
  return NULL;
}

static void lock(void) {
  while (__sync_lock_test_and_set(&lk, 1))
    _mm_pause();
}

static void unlock(void) { __sync_lock_release(&lk); }

static void *locker(void *arg) {
  long base = (long)arg, i;
  atomic_fetch_add(&started, 1);
  for (i = 0; i < 20000; i++) {
    struct node *x = malloc(sizeof *x);
    x->key = base + i;
    lock();
    x->next = shared;
    shared = x;
    unlock();
  }
  return NULL;
}

int main(void) {
  pthread_t t[5];
  long i, s = 0, c = 0;
  struct node *p;
  pthread_create(&t[0], NULL, gate_waiter, NULL);
  pthread_create(&t[1], NULL, yield_waiter, NULL);
  pthread_create(&t[2], NULL, consumer, NULL);
  pthread_create(&t[3], NULL, locker, (void *)0);
  pthread_create(&t[4], NULL, locker, (void *)20000);
  while (atomic_load(&started) < 5)
    ;
  for (i = 0; i < 60000; i++) {
    struct node *x = malloc(sizeof *x);
    struct node *old = atomic_load(&top);
    x->key = i;
    do
      x->next = old;
    while (!atomic_compare_exchange_weak(&top, &old, x));
  }
  atomic_store(&done, 1);
  atomic_store_explicit(&go, 1, memory_order_release);
  yield_go = 1;
  for (i = 0; i < 5; i++)
    pthread_join(t[i], NULL);
  printf("gate %ld yield %ld\n", gate_seen, yield_seen);
  for (p = consumed; p; p = p->next, c++)
    s += p->key;
  printf("consumed %ld sum %ld\n", c == consumed_count ? c : -1, s);
  for (s = c = 0, p = shared; p; p = p->next, c++)
    s += p->key;
  printf("shared %ld sum %ld\n", c, s);
  return 0;
}
