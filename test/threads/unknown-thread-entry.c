// Threads the runtime has never met.  The pool of Inputs/own-file/pool.c,
// a file without compactptr.h, starts its workers with libc's
// pthread_create, so nothing tells the runtime of them.  Their tasks only
// read a compact list -- no allocation, no checked frame -- while main
// allocates until the switch.  A task is an entry (its address is taken):
// a worker calling one counts as a thread the runtime has not met inside
// rewritten code, so the switch waits until it is back out, and none comes
// in while the switch runs.  Before, the switch moved the list under the
// walk and released the arena: SIGSEGV, or exit 70 (a compact pointer
// used after the switch), in 7 of 8 runs of the reduced program.
// RUN: %clang %cflags -O2 -Werror -I%S/Inputs/own-file %s %S/Inputs/own-file/pool.c -lpthread -o %t.native
// RUN: %clang %cflags -O2 -Werror -fplugin=%plugin -I%S/Inputs/own-file %s %S/Inputs/own-file/pool.c %runtime -o %t
// RUN: %t.native > %t.native.out
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t > %t.1M 2> %t.1M.err
// RUN: diff %t.native.out %t.1M
// RUN: FileCheck %s < %t.1M.err
// RUN: env COMPACTPTR_ARENA_LIMIT=512K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t > %t.512K 2> %t.512K.err
// RUN: diff %t.native.out %t.512K
// RUN: FileCheck %s < %t.512K.err
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t > %t.1Mb 2> %t.1Mb.err
// RUN: diff %t.native.out %t.1Mb
// RUN: FileCheck %s < %t.1Mb.err
// CHECK: compactptr: switch to wide mode (high-water mark) after {{[0-9]+}} allocations: {{.*}}, verified
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

#include "pool.h"

enum { WORKERS = 2, TASKS = 24, LIST = 16000 };

struct CP_COMPACT cell {
  int value;
  struct cell *next;
};

static struct cell *list;
static long sums[TASKS];
static int started[TASKS];
static int passes = 1500; /* argv[1]: fewer under ThreadSanitizer */

/* A task: says it started, then reads the list, allocating nothing. */
static void sum_list(void *arg) {
  long task = (long)arg, s = 0;
  __atomic_store_n(&started[task], 1, __ATOMIC_RELEASE);
  for (int pass = 0; pass < passes; pass++)
    for (const struct cell *c = list; c; c = c->next)
      s += c->value * (task + 1);
  sums[task] = s;
}

int main(int argc, char **argv) {
  if (argc > 1)
    passes = atoi(argv[1]);
  for (long i = 0; i < LIST; i++) {
    struct cell *c = malloc(sizeof *c);
    c->value = i % 97;
    c->next = list;
    list = c;
  }
  struct pool *p = pool_create(WORKERS);
  /* Once a task has started, cells that stay: the arena fills while the
   * workers walk. */
  struct cell *kept = NULL;
  for (long t = 0; t < TASKS; t++) {
    pool_submit(p, sum_list, (void *)t);
    while (!__atomic_load_n(&started[t], __ATOMIC_ACQUIRE)) {
      struct cell *c = malloc(sizeof *c);
      c->next = NULL;
      free(c);
    }
    for (long i = 0; i < 4000; i++) {
      struct cell *c = malloc(sizeof *c);
      c->value = i & 3;
      c->next = kept;
      kept = c;
    }
  }
  pool_wait_idle(p);
  pool_destroy(p);
  long total = 0, extra = 0;
  for (int t = 0; t < TASKS; t++)
    total += sums[t];
  for (const struct cell *c = kept; c; c = c->next)
    extra += c->value;
  printf("total %ld, kept %ld\n", total, extra);
  return 0;
}
