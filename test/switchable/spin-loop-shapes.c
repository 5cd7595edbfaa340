// Which loops are spin loops (docs/plugin.md, section 4a): what the loop
// waits on decides when it ends -- an atomic or volatile read in its
// condition, a yield or a pause in its body, or an `if` on such a read
// that leaves the loop, also through a local the body loads it into (`do
// r = atomic_load(&ready); while (!r);`).  An atomic counter bumped in a loop over keys (a
// qsort comparator's) makes none: before, it polled inside qsort, which
// holds copies of the elements, and a switch there left them stale (exit
// 70).  A possible signal handler's loops never poll (a switch there moved
// the heap under the code the signal interrupted), nor those of a
// function an installed handler calls (signal(), sa_handler), nor a loop
// inside a native region (the thread counts as stopped there already).  A
// `void (int)` callback of a table is no installed handler: what it calls
// polls.  A sum of atomic counters bounds no wait.
// REQUIRES: plugin
// RUN: %rewrite --plan -mode=switchable %s -- %cflags | FileCheck %s
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Werror %s
// CHECK-LABEL: plan: wait_ack
// CHECK-NOT: spin loop
// CHECK-LABEL: plan: on_signal
// CHECK-NOT: spin loop
// CHECK-LABEL: plan: by_key
// CHECK-NOT: spin loop
// CHECK-LABEL: plan: until_done
// CHECK-SAME: waits for other threads in a spin loop
// CHECK-LABEL: plan: until_flag
// CHECK-SAME: waits for other threads in a spin loop
// CHECK-LABEL: plan: yielding
// CHECK-SAME: waits for other threads in a spin loop
// CHECK-LABEL: plan: loaded_local
// CHECK-SAME: waits for other threads in a spin loop
// CHECK-LABEL: plan: loaded_exit
// CHECK-SAME: waits for other threads in a spin loop
// CHECK-LABEL: plan: barrier
// CHECK-SAME: waits for other threads in a spin loop
// CHECK-LABEL: plan: summed
// CHECK-NOT: spin loop
// CHECK-LABEL: plan: in_region
// CHECK-NOT: spin loop
// CHECK-LABEL: plan: main
#include <compactptr.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>

struct CP_COMPACT node {
  long key;
  struct node *next;
};

static atomic_long events, compares;
static atomic_int done, go;
static volatile int flag;
static struct node *list;

static void wait_ack(void) {
  while (!atomic_load(&done))
    ;
}

static void on_signal(int sig) {
  long old;
  (void)sig;
  wait_ack();
  do
    old = atomic_load(&events);
  while (!atomic_compare_exchange_weak(&events, &old, old + 1));
}

static int by_key(const void *a, const void *b) {
  const struct node *x = *(struct node *const *)a, *y = *(struct node *const *)b;
  int i;
  for (i = 0; i < 2; i++) {
    atomic_fetch_add(&compares, 1);
    if (x->key != y->key)
      return x->key < y->key ? -1 : 1;
  }
  return 0;
}

static void until_done(void) {
  for (;;) {
    if (atomic_load(&done))
      break;
  }
}

static void until_flag(void) {
  while (!flag)
    ;
}

static void yielding(int n) {
  while (n-- > 0)
    sched_yield();
}

static void loaded_local(void) {
  int r;
  do
    r = atomic_load(&go);
  while (!r);
}

static void loaded_exit(void) {
  for (;;) {
    int r = flag;
    if (r)
      break;
  }
}

static void barrier(void) {
  int r;
  do
    r = atomic_load(&go);
  while (r < 2);
}

static void task(int n) { // a table's callback, of a handler's type
  (void)n;
  barrier();
}

static void (*const tasks[])(int) = {task};

static atomic_long hits[8];

static long summed(void) {
  long s = 0;
  int i;
  for (i = 0; i < 8 && s < 1000; i++)
    s += atomic_load(&hits[i]);
  return s;
}

static void in_region(void) {
  CP_NATIVE(while (!atomic_load(&go)) {});
}

int main(void) {
  struct node *v[2];
  signal(SIGUSR1, on_signal);
  v[0] = list = malloc(sizeof *list);
  v[1] = malloc(sizeof *list);
  v[0]->key = 2;
  v[1]->key = 1;
  qsort(v, 2, sizeof v[0], by_key);
  until_done();
  until_flag();
  yielding(1);
  tasks[0](1);
  summed();
  loaded_local();
  loaded_exit();
  in_region();
  return 0;
}
