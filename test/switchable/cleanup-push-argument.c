// glibc's pthread_cleanup_push keeps its argument in a `void
// *__cancel_arg` of its own until the handler runs (pthread_cleanup_pop(1),
// or the thread's cancellation).  A compact pointer there is now a root of
// its initializer's type: before, a switch between push and pop handed
// the handler the address the switch had left behind (exit 70 in every
// run, with no warning).  Both ways the handler runs are here: pop(1) on
// the main thread, and a worker cancelled in pthread_cond_wait after a
// switch that ran while it waited there (the landing of the cancellation
// reads the argument back from its slot; before that was done, exit 70).
// A push nested inside another hides the outer one's argument
// from the saves: that one is warned, not a root (NESTED below).
// REQUIRES: plugin
// RUN: %clang %cflags -O1 %s -lpthread -o %t.native
// RUN: %t.native > %t.expect
// RUN: %clang %cflags -O0 -fplugin=%plugin %s %runtime -o %t0
// RUN: %clang %cflags -O2 -fplugin=%plugin %s %runtime -o %t2
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t0 > %t.out0 2> %t.err0
// RUN: diff %t.expect %t.out0
// RUN: grep -q "switch to wide mode (high-water mark).*verified" %t.err0
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t2 > %t.out2 2> %t.err2
// RUN: diff %t.expect %t.out2
// RUN: grep -q "switch to wide mode (high-water mark).*verified" %t.err2
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -DNESTED %s 2>&1 | FileCheck --check-prefix=NESTED %s
// NESTED: cleanup-push-argument.c:[[@LINE+74]]:3: warning: a compact pointer to 'struct owner' is handed to pthread_cleanup_push, which keeps it until its handler runs, and the pthread_cleanup_push nested inside hides where it is kept
#include <compactptr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT cell {
  long v;
  struct cell *next;
};
struct CP_COMPACT owner {
  int id;
  struct cell *list;
};

static long freed[3];
static void free_list(void *arg) {
  struct owner *o = arg;
  long s = 0;
  for (struct cell *c = o->list, *nx; c; c = nx) {
    nx = c->next;
    s += c->v;
    free(c);
  }
  o->list = NULL;
  freed[o->id] = s;
}

static void grow(struct owner *o, long n) {
  for (long i = 0; i < n; i++) {
    struct cell *c = malloc(sizeof *c);
    c->v = i;
    c->next = o->list;
    o->list = c;
  }
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int grown;

static void *worker(void *arg) {
  struct owner *o = malloc(sizeof *o);
  o->id = 1;
  o->list = NULL;
  pthread_cleanup_push(free_list, o);
  grow(o, 1000);
  pthread_mutex_lock(&mu);
  grown = 1;
  pthread_cond_broadcast(&cv);
  for (;;) // cancelled here, once main has switched
    pthread_cond_wait(&cv, &mu);
  pthread_cleanup_pop(0);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_mutex_lock(&mu);
  while (!grown)
    pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
  struct owner *o = malloc(sizeof *o);
  o->id = 0;
  o->list = NULL;
  pthread_cleanup_push(free_list, o);
  grow(o, 60000); // the switch happens in here, the worker waiting
  pthread_cleanup_pop(1);
  pthread_cancel(t);
  pthread_join(t, NULL);
  printf("freed %ld %ld\n", freed[0], freed[1]);
#ifdef NESTED
  struct owner *p = malloc(sizeof *p);
  pthread_cleanup_push(free_list, p);
  pthread_cleanup_push(free_list, NULL);
  grow(p, 10);
  pthread_cleanup_pop(0);
  pthread_cleanup_pop(1);
#endif
  return 0;
}
