// C11 <threads.h> waits are blocking calls as their POSIX twins are: a
// worker blocked in cnd_wait, one waiting in mtx_lock for a mutex main
// holds, one in thrd_sleep, and main in thrd_join, with no CP_NATIVE
// anywhere.  The plugin calls each in a native region, so the switch that
// main's allocations start does not wait for the workers.  Before, the
// switch waited COMPACTPTR_SAFEPOINT_TIMEOUT (10 s) for the worker in
// cnd_wait and stopped the program (exit 70).  Each worker's own list,
// kept across its wait, is found moved when it wakes; a worker's argument
// on main's stack (thrd_create's) is read in the layout it was written
// in.  The output is the native build's.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 -Werror %s -lpthread -o %t.native
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t -lpthread
// RUN: %t.native > %t.out.native
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_SAFEPOINT_TIMEOUT=5000 COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t > %t.out 2> %t.err
// RUN: diff %t.out.native %t.out
// RUN: FileCheck %s < %t.err
// CHECK: compactptr: switch to wide mode (high-water mark) after {{[0-9]+}} allocations: moved {{[0-9]+}} objects, {{.*}} threads stopped, verified
// CHECK: compactptr: mode wide
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <threads.h>

struct CP_COMPACT item {
  long value;
  struct item *next;
};
/* A worker's argument: holds a compact pointer, so it is compact too. */
struct job {
  int id;
  struct item *seed;
};

static mtx_t m, held;
static cnd_t c;
static int go;
static struct item *shared;
static char report[3][100]; /* printed by main, in order */

static struct item *push(struct item *list, long v) {
  struct item *it = malloc(sizeof *it);
  it->value = v;
  it->next = list;
  return it;
}

static long sum(const struct item *p) {
  long s = 0;
  for (; p; p = p->next)
    s += p->value;
  return s;
}

static int worker(void *arg) {
  struct job *j = arg;
  struct item *mine = NULL;
  for (long i = 0; i < 1000; i++)
    mine = push(mine, i * (j->id + 1));
  if (j->id == 0) { /* blocks in cnd_wait */
    mtx_lock(&m);
    while (!go)
      cnd_wait(&c, &m);
    mtx_unlock(&m);
  } else if (j->id == 1) { /* blocks in mtx_lock: main holds `held` */
    mtx_lock(&held);
    mtx_unlock(&held);
  } else { /* sleeps */
    struct timespec ts = {0, 300 * 1000 * 1000};
    thrd_sleep(&ts, NULL);
  }
  mtx_lock(&m);
  snprintf(report[j->id], sizeof report[j->id],
           "worker %d: own %ld, seed %ld, shared %ld", j->id, sum(mine),
           j->seed->value, sum(shared));
  mtx_unlock(&m);
  while (mine) {
    struct item *next = mine->next;
    free(mine);
    mine = next;
  }
  return j->id;
}

int main(void) {
  thrd_t t[3];
  struct job jobs[3];
  mtx_init(&m, mtx_plain);
  mtx_init(&held, mtx_plain);
  cnd_init(&c);
  mtx_lock(&held);
  for (int i = 0; i < 3; i++) {
    jobs[i].id = i;
    jobs[i].seed = push(NULL, 100 + i);
    if (thrd_create(&t[i], worker, &jobs[i]) != thrd_success)
      return 1;
  }
  struct timespec ts = {0, 50 * 1000 * 1000};
  thrd_sleep(&ts, NULL); /* let the workers block */
  struct item *local = NULL;
  for (long i = 0; i < 100000; i++) /* 1.6 MB of items: past the arena */
    local = push(local, i);
  mtx_lock(&m);
  shared = local;
  go = 1;
  cnd_signal(&c);
  mtx_unlock(&m);
  mtx_unlock(&held);
  int total = 0;
  for (int i = 0; i < 3; i++) {
    int r;
    thrd_join(t[i], &r);
    total += r;
  }
  for (int i = 0; i < 3; i++)
    puts(report[i]);
  printf("joined, ids %d, shared %ld\n", total, sum(shared));
  return 0;
}
