// A worker blocked in pthread_cond_wait (a native region) under a deep
// recursion with compact roots is cancelled while the switch runs: the
// cancellation lands at the __sigsetjmp of pthread_cleanup_push, whose
// rewrite puts the shadow-stack chain back.  The switch holds the worker
// and may be walking that chain, the frames the jump left included, so
// the landing takes the thread out of the switch's hands first, without a
// call (cp__jump_landed), and only then writes its chain.  Before, it
// wrote the chain while the switch read it (ThreadSanitizer reported the
// race in every run: cancel-during-switch-tsan.test) and then ran the
// cleanup handlers over the frames the switch could still be walking.
// The canceller is built without the plugin (a thread the runtime never
// knows), so it can act while the world is stopped.
// RUN: %clang %cflags -O1 %s %S/../Inputs/threads/canceller.c -lpthread -o %t.native
// RUN: %clang %cflags -O1 -fplugin=%plugin -c %s -o %t.o
// RUN: %clang %cflags -O1 -c %S/../Inputs/threads/canceller.c -o %t.canceller.o
// RUN: %clang %t.o %t.canceller.o %runtime -o %t
// RUN: %t.native 200000 0 > %t.expect
// RUN: sh -c 'for d in 0 200 1000 3000 10000; do env COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 200000 $d > %t.out 2> %t.err || exit 1; diff %t.expect %t.out || exit 1; grep -q "switch to wide mode (cp_switch_to_wide()).*verified" %t.err || exit 1; done'
// A heap large enough that the cancellation and the signals land while
// the switch runs (the earlier waits crashed here in 2 runs of 3, SIGSEGV
// in the root walk).
// RUN: %t.native 4000000 0 > %t.expect-big
// RUN: sh -c 'for d in 1000 3000 3000 3000; do env COMPACTPTR_STATS=1 %t 4000000 $d > %t.out 2> %t.err || exit 1; diff %t.expect-big %t.out || exit 1; grep -q "switch to wide mode (cp_switch_to_wide())" %t.err || exit 1; done'
#include <compactptr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  long v;
  struct node *next;
};

pthread_t start_canceller(pthread_t v, long delay_us);
void canceller_go(void);

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready;
static struct node *global;
static long cleaned; /* what the cleanup handlers saw */

static struct node *push(struct node *l, long v) {
  struct node *n = malloc(sizeof *n);
  n->v = v;
  n->next = l;
  return n;
}

static long sum(struct node *l) {
  long s = 0;
  for (; l; l = l->next)
    s += l->v;
  return s;
}

static void unlock(void *m) { pthread_mutex_unlock(m); }

/* Each level keeps a list in a root across the call below it. */
static long deep(int d, struct node *mine) {
  if (d > 0) {
    struct node *more = push(mine, d);
    long r = deep(d - 1, more);
    return r + more->v;
  }
  // The cleanup handler that unlocks is the outermost one (worker's):
  // the cancellation lands there alone, leaving every frame of this
  // recursion below the stack pointer while the switch may walk them.
  pthread_mutex_lock(&mu);
  ready = 1;
  pthread_cond_broadcast(&cv);
  for (;;)
    pthread_cond_wait(&cv, &mu);
  return sum(mine);
}

/* The outer cleanup handler reads the worker's own list after the switch
 * (the cancellation came during it). */
static struct node *worker_list;
static void count(void *arg) {
  (void)arg;
  cleaned = sum(worker_list);
  unlock(&mu);
}

static void *worker(void *arg) {
  (void)arg;
  long r = 0;
  worker_list = push(0, 7);
  pthread_cleanup_push(count, 0);
  r = deep(60, worker_list);
  pthread_cleanup_pop(0);
  return (void *)r;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 20000;
  long delay = argc > 2 ? atol(argv[2]) : 1000;
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  pthread_mutex_lock(&mu);
  while (!ready)
    pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
  for (int i = 0; i < n; i++)
    global = push(global, i);
  pthread_t c = start_canceller(t, delay);
  canceller_go();
  cp_switch_to_wide();
  pthread_join(c, 0);
  void *res;
  pthread_join(t, &res);
  printf("cancelled %d, cleanup saw %ld, sum %ld\n", res == PTHREAD_CANCELED, cleaned,
         sum(global));
  return 0;
}
