// A thread's result -- its start routine's return value, or pthread_exit's
// argument -- that is a compact pointer reaches the joiner through
// pthread_join, from libc's memory.  The plugin wraps it in
// cp_thread_result, and <compactptr.h> gives pthread_join the assembler
// name of cp_thread_join: the runtime keeps such a result as a root from
// the thread's end until the join, which hands over the translated copy.
// Before, a switch between a worker's end and its join left the joiner a
// pointer into the released arena (exit 70, 4 runs of 4).  The results
// are joined into a `void *` local and walked after a poll of main's loop:
// that local is a root too (exit 70 in 1 of about 100 runs before).
//
// "after": main waits until every worker has built its list and is
// returning, then allocates enough to switch, then joins.  "during": main
// joins at once (blocked in pthread_join, a native region) while the
// workers' allocations bring the switch about, some of them parked at
// their end.  Half the workers return their list, half pass it to
// pthread_exit; one returns a pointer into the middle of its list.  Some
// are joined with GNU's pthread_timedjoin_np and pthread_tryjoin_np,
// which the header hooks alike.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 -Werror %s -lpthread -o %t.native
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t -lpthread
// RUN: %t.native after 4 > %t.after
// RUN: env COMPACTPTR_ARENA_LIMIT=512K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t after 4 > %t.out 2> %t.err
// RUN: diff %t.after %t.out
// RUN: FileCheck %s < %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=640K COMPACTPTR_VERIFY=1 %t after 4 | diff %t.after -
// RUN: %t.native during 4 > %t.during
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t during 4 > %t.out 2> %t.err
// RUN: diff %t.during %t.out
// RUN: FileCheck %s < %t.err
// RUN: %t.native during 8 > %t.during8
// RUN: env COMPACTPTR_ARENA_LIMIT=512K COMPACTPTR_VERIFY=1 %t during 8 | diff %t.during8 -
// CHECK: compactptr: switch to wide mode (high-water mark) after {{.*}}, {{[1-9]}} roots, {{.*}}, verified
#define _GNU_SOURCE
#include <compactptr.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct CP_COMPACT node {
  long key;
  struct node *next;
};

static _Atomic int finished;

static struct node *build(long base, long n) {
  struct node *h = NULL;
  for (long i = 0; i < n; i++) {
    struct node *x = malloc(sizeof *x);
    x->key = base + i;
    x->next = h;
    h = x;
  }
  return h;
}

static void *builder(void *arg) {
  struct node *h = build((long)arg * 100000, 5000);
  finished++;
  if ((long)arg == 2) /* the middle of the list: keys base+2499 down */
    for (int i = 0; i < 2500; i++)
      h = h->next;
  return h;
}

static void *exiter(void *arg) {
  struct node *h = build((long)arg * 100000, 5000);
  finished++;
  pthread_exit(h);
}

int main(int argc, char **argv) {
  pthread_t t[8];
  int after = argc > 1 && strcmp(argv[1], "after") == 0;
  int k = argc > 2 ? atoi(argv[2]) : 4;
  if (k < 1 || k > 8)
    return 2;
  for (long i = 0; i < k; i++)
    if (pthread_create(&t[i], NULL, i % 2 ? exiter : builder, (void *)i))
      return 1;
  struct node *mine = NULL;
  if (after) {
    while (finished < k)
      sched_yield();
    mine = build(900000, 20000);
  }
  long s = 0, n = 0;
  for (int i = 0; i < k; i++) {
    void *r;
    if (i == 1) {
      struct timespec ts;
      clock_gettime(CLOCK_REALTIME, &ts);
      ts.tv_sec += 60;
      if (pthread_timedjoin_np(t[i], &r, &ts))
        return 1;
    } else if (i == 3) {
      int e;
      while ((e = pthread_tryjoin_np(t[i], &r)) == EBUSY)
        sched_yield();
      if (e)
        return 1;
    } else if (pthread_join(t[i], &r)) {
      return 1;
    }
    for (struct node *x = r; x; x = x->next)
      s += x->key, n++;
  }
  for (struct node *x = mine; x; x = x->next)
    s += x->key, n++;
  printf("%ld nodes, sum %ld\n", n, s);
  return 0;
}
