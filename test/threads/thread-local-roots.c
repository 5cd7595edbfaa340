// Each worker keeps its nodes in thread-local variables at file scope: a
// list it grows, a free list of nodes it recycles, and a two-slot array of
// the latest nodes.  The plugin registers every thread's copies as roots
// when the thread becomes known, so the switch, which the workers'
// allocations start mid-run, translates each thread's copies; the workers
// meet at a barrier (a blocking call: a native region) between rounds.
// Before, such thread-locals were refused in switchable mode.  The output
// is the native build's.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 -Werror %s -lpthread -o %t.native
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %t.native 4 > %t.out.native
// RUN: env COMPACTPTR_ARENA_LIMIT=2M COMPACTPTR_HIGH_WATER=40 COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 4 > %t.out 2> %t.err
// RUN: diff %t.out.native %t.out
// RUN: FileCheck %s < %t.err
// CHECK: compactptr: switch to wide mode (high-water mark) after {{[0-9]+}} allocations: {{.*}} threads stopped, verified
// CHECK: compactptr: mode wide
#include <compactptr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT cell { long n; struct cell *next; };

enum { MAXW = 8, ROUNDS = 12, PER_ROUND = 2500 };

static _Thread_local struct cell *kept;      /* this thread's list */
static _Thread_local struct cell *recycled;  /* its free nodes */
static __thread struct cell *latest[2];      /* its two newest nodes */
static pthread_barrier_t between_rounds;
static long sums[MAXW];

static struct cell *take(long n) {
  struct cell *c = recycled;
  if (c)
    recycled = c->next;
  else
    c = malloc(sizeof *c);
  c->n = n;
  c->next = NULL;
  return c;
}

static void give_back(struct cell *c) {
  c->next = recycled;
  recycled = c;
}

static void *worker(void *arg) {
  long me = (long)arg;
  for (int r = 0; r < ROUNDS; r++) {
    for (long i = 0; i < PER_ROUND; i++) {
      struct cell *c = take(me * 1000000 + r * PER_ROUND + i);
      c->next = kept;
      kept = c;
      latest[i & 1] = c;
      if (i % 3 == 0) { /* recycle the head: the free list holds nodes too */
        struct cell *h = kept;
        kept = h->next;
        give_back(h);
      }
    }
    pthread_barrier_wait(&between_rounds);
  }
  long s = latest[0]->n + latest[1]->n;
  for (const struct cell *c = kept; c; c = c->next)
    s += c->n;
  for (const struct cell *c = recycled; c; c = c->next)
    s -= c->n;
  sums[me] = s;
  return NULL;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2;
  if (n < 1 || n > MAXW)
    return 2;
  pthread_barrier_init(&between_rounds, NULL, (unsigned)n);
  pthread_t t[MAXW];
  for (long i = 0; i < n; i++)
    pthread_create(&t[i], NULL, worker, (void *)i);
  for (int i = 0; i < n; i++)
    pthread_join(t[i], NULL);
  for (int i = 0; i < n; i++)
    printf("worker %d: %ld\n", i, sums[i]);
  return 0;
}
