// A thread blocks in a native region with compact pointers live across
// it while another thread fills the arena and switches.  The locals stay
// in their frame slots from cp_native_enter() to cp_native_leave(), so the
// values the switch translated there are the ones read back (reading them
// back at the entry and saving them again at the exit would put the stale
// compact addresses back: the first access after the region then stops the
// program with the runtime's stale-pointer error).  Three shapes: CP_NATIVE
// in a loop, the two calls written out in a block, and a region that
// assigns a non-compact local; then CP_NATIVE around the whole wait loop,
// and a call of the program's own inside a region (no save or read back
// there: the roots are in their slots), run without a switch.
// RUN: %clang %cflags -O1 -Werror %s -lpthread -o %t.native
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %t.native 1 > %t.out.native1
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_HIGH_WATER=10 COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 1 > %t.out1 2> %t.err1
// RUN: diff %t.out.native1 %t.out1
// RUN: FileCheck %s < %t.err1
// RUN: %t.native 2 > %t.out.native2
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_HIGH_WATER=10 COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2 > %t.out2 2> %t.err2
// RUN: diff %t.out.native2 %t.out2
// RUN: FileCheck %s < %t.err2
// CHECK: compactptr: switch to wide mode (high-water mark) after {{[0-9]+}} allocations: {{.*}} threads stopped, verified
#include <compactptr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT item { long key; struct item *next; };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int stage;

static struct item *cons(long key, struct item *next) {
  struct item *it = malloc(sizeof *it);
  it->key = key;
  it->next = next;
  return it;
}

// Waits until main has reached stage `want`; the list it holds must come
// back translated.
static long wait_in_macro(int want) {
  struct item *mine = cons(7, cons(8, NULL));
  pthread_mutex_lock(&lock);
  while (stage < want)
    CP_NATIVE(pthread_cond_wait(&cond, &lock));
  pthread_mutex_unlock(&lock);
  return mine->key * 10 + mine->next->key;
}

static long wait_written_out(int want) {
  struct item *mine = cons(3, NULL);
  int rounds = 0;
  pthread_mutex_lock(&lock);
  while (stage < want) {
    cp_native_enter();
    pthread_cond_wait(&cond, &lock);
    rounds = rounds < 1 ? rounds + 1 : rounds;
    cp_native_leave();
  }
  pthread_mutex_unlock(&lock);
  // How often it waited depends on the threads' timing: not printed.
  return mine->key + (rounds > 1);
}

static long wait_whole_loop(int want) {
  struct item *mine = cons(5, NULL);
  pthread_mutex_lock(&lock);
  CP_NATIVE(while (stage < want) pthread_cond_wait(&cond, &lock));
  pthread_mutex_unlock(&lock);
  return mine->key;
}

// CP_SAFEPOINT: as a function of another file would, it may reach one.
static int flushes;
static CP_SAFEPOINT void flush_out(void) {
  fflush(stdout);
  flushes++;
}

static long call_inside(void) {
  struct item *mine = cons(6, NULL);
  CP_NATIVE(flush_out());
  CP_NATIVE(if (flushes) CP_NATIVE(flush_out()));
  return mine->key + flushes;
}

static void *worker(void *arg) {
  (void)arg;
  long a = wait_in_macro(1);
  long b = wait_written_out(2);
  long c = wait_whole_loop(2);
  long d = call_inside();
  printf("worker %ld %ld %ld %ld\n", a, b, c, d);
  return NULL;
}

static void advance(void) {
  pthread_mutex_lock(&lock);
  stage++;
  pthread_cond_broadcast(&cond);
  pthread_mutex_unlock(&lock);
}

// The argument says in which of the worker's regions the arena fills: 1
// (CP_NATIVE) or 2 (the calls written out).
int main(int argc, char **argv) {
  int fill = argc > 1 ? atoi(argv[1]) : 1;
  pthread_t t;
  struct item *list = NULL;
  long sum = 0;
  pthread_create(&t, NULL, worker, NULL);
  // 100000 nodes cross the high-water mark of a 1 MiB arena; 100 do not.
  for (long i = 0; i < (fill == 1 ? 100000 : 100); i++)
    list = cons(i, list);
  advance();
  for (long i = 0; i < (fill == 2 ? 100000 : 100); i++)
    list = cons(i, list);
  advance();
  pthread_join(t, NULL);
  for (struct item *p = list; p; p = p->next)
    sum += p->key;
  printf("main %ld\n", sum);
  return 0;
}
