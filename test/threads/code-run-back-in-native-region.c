// Code that a blocking call runs back on its thread, inside the call's
// native region: pthread_once's init routine (allocating while two other
// threads wait in pthread_once, the switch running in the middle of it),
// and the cleanup handler of a thread cancelled in pthread_cond_wait
// (freeing the thread's list).  The region ends at the first allocation,
// free or safepoint there, and the thread runs as any other.  (Before,
// the init routine and the cleanup handler stopped the program: "an
// allocation or free inside a native region"; and with pthread_once not
// taken for a blocking call, the waiting threads held the switch up until
// COMPACTPTR_SAFEPOINT_TIMEOUT.)
// REQUIRES: plugin
// RUN: %clang %cflags -O1 -Werror %s -lpthread -o %t.native
// RUN: %t.native > %t.expect
// RUN: FileCheck %s < %t.expect
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %t | diff %t.expect -
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 COMPACTPTR_SAFEPOINT_TIMEOUT=5000 %t 2> %t.err | diff %t.expect -
// RUN: grep -q 'switch to wide mode' %t.err
// CHECK: once: 3 users, total 134999550000
// CHECK: cancelled 1, freed 100
#include <compactptr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  struct node *next;
  long v;
};

/* ---- lazy initialization ---- */
static struct node *table;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init_table(void) {
  for (int i = 0; i < 300000; i++) {
    struct node *n = malloc(sizeof *n);
    n->v = i;
    n->next = table;
    table = n;
  }
}

static void *user(void *arg) {
  (void)arg;
  pthread_once(&once, init_table);
  long s = 0;
  for (struct node *n = table; n; n = n->next)
    s += n->v;
  return (void *)s;
}

/* ---- cancellation ---- */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready, go;
static struct node *list;
static long freed;

static void release(void *arg) {
  (void)arg;
  while (list) {
    struct node *n = list->next;
    free(list);
    list = n;
    freed++;
  }
  pthread_mutex_unlock(&mu);
}

static void *waiter(void *arg) {
  (void)arg;
  for (int i = 0; i < 100; i++) {
    struct node *n = malloc(sizeof *n);
    n->v = i;
    n->next = list;
    list = n;
  }
  pthread_mutex_lock(&mu);
  ready = 1;
  pthread_cond_signal(&cv);
  pthread_cleanup_push(release, NULL);
  while (!go)
    pthread_cond_wait(&cv, &mu);
  pthread_cleanup_pop(1);
  return NULL;
}

int main(void) {
  pthread_t t[3];
  for (int i = 0; i < 3; i++)
    pthread_create(&t[i], NULL, user, NULL);
  long total = 0;
  for (int i = 0; i < 3; i++) {
    void *r;
    pthread_join(t[i], &r);
    total += (long)r;
  }
  printf("once: 3 users, total %ld\n", total);

  pthread_t w;
  pthread_create(&w, NULL, waiter, NULL);
  pthread_mutex_lock(&mu);
  while (!ready)
    pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
  pthread_cancel(w);
  void *r;
  pthread_join(w, &r);
  printf("cancelled %d, freed %ld\n", r == PTHREAD_CANCELED, freed);
  return 0;
}
