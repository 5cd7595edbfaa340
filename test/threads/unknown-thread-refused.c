// A worker of a pool of a file without compactptr.h (libc's
// pthread_create) waits at another file's gate from a compact body: task
// touches compact objects and reaches no safepoint the plugin can see, so
// it keeps its compact pointers in registers across the wait, and the
// thread stays inside.  The switch cannot run: after the timeout the
// program stops with one line naming the thread (kernel id, name, state)
// and the way out -- which is taken in the second build: gate_pass
// declared CP_SAFEPOINT, the task keeps its locals in roots and waits
// outside, and the switch runs while it waits.
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin -I%S/Inputs/own-file %s %S/Inputs/own-file/pool.c %S/Inputs/own-file/gate.c %runtime -o %t
// RUN: env COMPACTPTR_SAFEPOINT_TIMEOUT=500 not %t 2> %t.err
// RUN: FileCheck --check-prefix=REFUSED %s < %t.err
// REFUSED: compactptr: cannot switch to wide mode (cp_switch_to_wide()): thread tid {{[0-9]+}} ('{{.*}}', state S), started by code built without compactptr.h (libc's pthread_create), did not leave rewritten code within 500 ms (COMPACTPTR_SAFEPOINT_TIMEOUT): it is blocked in the kernel inside rewritten code: {{.*}}; declare that callee CP_SAFEPOINT in the prototype the caller sees
// RUN: %clang %cflags -O1 -Werror -DDECLARED -fplugin=%plugin -I%S/Inputs/own-file %s %S/Inputs/own-file/pool.c %S/Inputs/own-file/gate.c %runtime -o %t.declared
// RUN: env COMPACTPTR_SAFEPOINT_TIMEOUT=5000 %t.declared | FileCheck --check-prefix=SWITCHED %s
// SWITCHED: sum 4950 then 4950, wide
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

#include "gate.h"
#include "pool.h"

#ifdef DECLARED
CP_SAFEPOINT void gate_pass(struct gate *g);
#endif

struct CP_COMPACT cell {
  int v;
  struct cell *next;
};

static struct cell *list;
static struct gate *gate;
static long before, after;

static void task(void *arg) {
  (void)arg;
  for (const struct cell *c = list; c; c = c->next)
    before += c->v;
  gate_pass(gate);
  for (const struct cell *c = list; c; c = c->next)
    after += c->v;
}

int main(void) {
  for (int i = 0; i < 100; i++) {
    struct cell *c = malloc(sizeof *c);
    c->v = i;
    c->next = list;
    list = c;
  }
  struct pool *p = pool_create(1);
  gate = gate_new();
  pool_submit(p, task, NULL);
  gate_wait_for(gate, 1);
  cp_switch_to_wide();
  gate_open(gate);
  pool_wait_idle(p);
  pool_destroy(p);
  gate_free(gate);
  printf("sum %ld then %ld, %s\n", before, after,
         cp_is_compact() ? "compact" : "wide");
  return 0;
}
