// pthread_exit (and cancellation) unwind C code without running the
// cleanups that pop the plugin's shadow frames, so an exiting thread's
// chain still named the frames of its function while the unwinder and
// then the key destructors wrote over that stack; a switch in a
// destructor of the program's (here one that allocates a list) walked the
// chain: SIGSEGV in every run.  The runtime's exit hook, which runs first,
// now starts the chain again at its bottom.
// RUN: %clang %cflags -O2 -Werror %s -lpthread -o %t.native
// RUN: %clang %cflags -O2 -Werror -fplugin=%plugin %s %runtime -o %t -lpthread
// RUN: %t.native > %t.native.out
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_STATS=1 %t > %t.out 2> %t.err
// RUN: diff %t.native.out %t.out
// RUN: FileCheck %s < %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_VERIFY=1 %t | diff %t.native.out -
// RUN: env COMPACTPTR_ARENA_LIMIT=1M %t | diff %t.native.out -
// RUN: %clang %cflags -O0 -Werror -fplugin=%plugin %s %runtime -o %t.O0 -lpthread
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_VERIFY=1 %t.O0 | diff %t.native.out -
// CHECK: compactptr: switch to wide mode {{.*}} after {{[0-9]+}} allocations
#include <compactptr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { WORKERS = 3, OWN = 1000, SUMMARY = 60000 };

struct CP_COMPACT item {
  long value;
  struct item *next;
};

static pthread_key_t summary_key;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct item *handed; /* every list, joined */

/* Joins the thread's list to the shared one and ends the thread from
 * inside its callers' frames. */
static void hand_over_and_exit(struct item *list) {
  struct item *tail = list;
  while (tail->next)
    tail = tail->next;
  pthread_mutex_lock(&lock);
  tail->next = handed;
  handed = list;
  pthread_mutex_unlock(&lock);
  pthread_exit(NULL);
}

/* The thread's summary: a scratch list as long as its argument, summed,
 * freed, and one record of the sum. */
static void summarize(void *arg) {
  long n = (long)arg, sum = 0;
  struct item *scratch = NULL;
  for (long i = 0; i < n; i++) {
    struct item *x = malloc(sizeof *x);
    x->value = i % 7;
    x->next = scratch;
    scratch = x;
  }
  while (scratch) {
    struct item *next = scratch->next;
    sum += scratch->value;
    free(scratch);
    scratch = next;
  }
  struct item *record = malloc(sizeof *record);
  record->value = sum;
  pthread_mutex_lock(&lock);
  record->next = handed;
  handed = record;
  pthread_mutex_unlock(&lock);
}

static struct item *build(long id) {
  struct item *list = NULL;
  for (long i = 0; i < OWN; i++) {
    struct item *x = malloc(sizeof *x);
    x->value = id * OWN + i;
    x->next = list;
    list = x;
  }
  return list;
}

static void *worker(void *arg) {
  struct item *mine = build((long)arg);
  pthread_setspecific(summary_key, (void *)(long)SUMMARY);
  hand_over_and_exit(mine);
  return NULL;
}

int main(void) {
  pthread_key_create(&summary_key, summarize);
  pthread_t t[WORKERS];
  for (long i = 0; i < WORKERS; i++)
    pthread_create(&t[i], NULL, worker, (void *)i);
  for (int i = 0; i < WORKERS; i++)
    pthread_join(t[i], NULL);
  long count = 0, sum = 0;
  for (struct item *p = handed; p; p = p->next) {
    count++;
    sum += p->value;
  }
  printf("items %ld sum %ld\n", count, sum);
  return 0;
}
