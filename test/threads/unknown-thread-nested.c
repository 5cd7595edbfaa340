// A thread the runtime has never met (a worker of Inputs/own-file/pool.c,
// started with libc's pthread_create) runs a task of this file, which
// calls apply() of a file without compact types (a call out: the thread
// is outside while it runs), which calls back visit(), an entry of this
// file: the thread comes in a second time before it left the first.  It
// counts once; before, it counted twice and left once, and every switch
// after it stopped the program at the timeout (exit 70, "1 thread the
// runtime has not met ... did not leave").
// RUN: %clang %cflags -O1 -Werror -I%S/Inputs/own-file %s %S/Inputs/own-file/pool.c %S/Inputs/own-file/apply.c -lpthread -o %t.native
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin -I%S/Inputs/own-file %s %S/Inputs/own-file/pool.c %S/Inputs/own-file/apply.c %runtime -o %t
// RUN: %t.native > %t.expected
// RUN: env COMPACTPTR_ARENA_LIMIT=512K COMPACTPTR_STATS=1 COMPACTPTR_SAFEPOINT_TIMEOUT=3000 %t > %t.out 2> %t.err
// RUN: diff %t.expected %t.out
// RUN: FileCheck %s < %t.err
// CHECK: compactptr: switch to wide mode (high-water mark)
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

#include "apply.h"
#include "pool.h"

enum { TASKS = 8 };

struct CP_COMPACT item {
  int weight;
  struct item *next;
};

static struct item *items;
static long seen[TASKS];

static void visit(int task) {
  for (const struct item *i = items; i; i = i->next)
    seen[task] += i->weight;
}

/* Checked (it allocates), so that its call of apply() is a call out;
 * the allocation after it attaches the thread. */
static void task(void *arg) {
  int t = (int)(long)arg;
  apply(visit, t);
  struct item *mark = malloc(sizeof *mark);
  mark->weight = t;
  seen[t] += mark->weight;
  free(mark);
}

int main(void) {
  for (int k = 0; k < 1000; k++) {
    struct item *i = malloc(sizeof *i);
    i->weight = k % 7;
    i->next = items;
    items = i;
  }
  struct pool *p = pool_create(2);
  for (long t = 0; t < TASKS; t++)
    pool_submit(p, task, (void *)t);
  pool_wait_idle(p);
  /* The tasks are over: a switch now waits for no one. */
  struct item *kept = NULL;
  for (int k = 0; k < 100000; k++) {
    struct item *i = malloc(sizeof *i);
    i->weight = 1;
    i->next = kept;
    kept = i;
  }
  long total = 0, n = 0;
  for (int t = 0; t < TASKS; t++)
    total += seen[t];
  for (const struct item *i = kept; i; i = i->next)
    n += i->weight;
  printf("seen %ld, kept %ld\n", total, n);
  pool_destroy(p);
  return 0;
}
