// Workers of a pool of a file without compactptr.h (Inputs/own-file/
// pool.c: libc's pthread_create, so the runtime has never met them) run
// tasks of this file that walk a list, then wait at a gate of another
// file (a call out: gate_pass is CP_SAFEPOINT) until main has switched,
// then walk the list again.  A thread the runtime has not met that waits
// in a call out counts as stopped, as a known thread does; before, such a
// thread was counted as inside until its task returned, and this switch
// stopped the program at the timeout (exit 70, "1 thread the runtime has
// not met ... did not leave rewritten code").  Then 5000 threads of
// their own (argv[1]), one after another, each run one entry and exit:
// each gives back what it took (the runtime has 4096 places for such
// threads).
// RUN: %clang %cflags -O1 -Werror -I%S/Inputs/own-file %s %S/Inputs/own-file/pool.c %S/Inputs/own-file/gate.c -lpthread -o %t.native
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin -I%S/Inputs/own-file %s %S/Inputs/own-file/pool.c %S/Inputs/own-file/gate.c %runtime -o %t
// RUN: %t.native > %t.expected
// RUN: env COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 COMPACTPTR_SAFEPOINT_TIMEOUT=5000 %t > %t.out 2> %t.err
// RUN: diff %t.expected %t.out
// RUN: FileCheck %s < %t.err
// CHECK: compactptr: switch to wide mode (cp_switch_to_wide()) after {{[0-9]+}} allocations: {{.*}}, verified
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

#include "gate.h"
#include "pool.h"

/* It blocks until main opens the gate: the plugin sees a safepoint, and
 * the callers keep their compact locals in roots across it. */
CP_SAFEPOINT void gate_pass(struct gate *g);

enum { WORKERS = 4, CELLS = 20000 };

struct CP_COMPACT cell {
  long v;
  struct cell *next;
};

static struct cell *list;
static struct gate *gate;
static long before[WORKERS], after[WORKERS];

static long walk(long k) {
  long s = 0;
  for (const struct cell *c = list; c; c = c->next)
    s += c->v * k % 1009;
  return s;
}

static void task(void *arg) {
  long i = (long)arg;
  before[i] = walk(i + 1);
  gate_pass(gate);
  after[i] = walk(i + 1);
}

static long hits;
static void touch(void *arg) {
  (void)arg;
  if (list && list->v >= 0)
    __atomic_fetch_add(&hits, 1, __ATOMIC_RELAXED);
}

static void push(long v) {
  struct cell *c = malloc(sizeof *c);
  c->v = v;
  c->next = list;
  list = c;
}

int main(int argc, char **argv) {
  int short_lived = argc > 1 ? atoi(argv[1]) : 5000;
  for (long i = 0; i < CELLS; i++)
    push(i);
  struct pool *p = pool_create(WORKERS);
  gate = gate_new();
  for (long i = 0; i < WORKERS; i++)
    pool_submit(p, task, (void *)i);
  gate_wait_for(gate, WORKERS);
  /* Every worker waits at the gate, in the middle of its task. */
  cp_switch_to_wide();
  for (long i = 0; i < CELLS; i++)
    push(CELLS + i);
  gate_open(gate);
  pool_wait_idle(p);
  pool_destroy(p);
  gate_free(gate);
  for (int i = 0; i < short_lived; i++)
    gate_thread(touch, NULL);
  for (int i = 0; i < WORKERS; i++)
    printf("worker %d: %ld then %ld\n", i, before[i], after[i]);
  printf("short-lived threads: %ld\n", hits);
  while (list) {
    struct cell *c = list;
    list = c->next;
    free(c);
  }
  return 0;
}
