// pthread_cancel of workers that allocate (deferred cancellation at
// pthread_testcancel) while a switch runs: a worker parked for the switch
// waited in pthread_cond_wait, a cancellation point, and was cancelled
// there holding the runtime's registry lock; every other thread then hung
// (12 runs in 40, some deaf to SIGTERM).  The runtime's waits are no
// cancellation points now.  Each run cancels at another moment.
// RUN: %clang %cflags -O1 -Werror %s -lpthread -o %t.native
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t -lpthread
// RUN: %t.native 150000 > %t.native.out
// RUN: sh -c 'for at in 150000 160000 170000 180000 190000 200000 210000 220000 230000 240000; do env COMPACTPTR_ARENA_LIMIT=4M COMPACTPTR_HIGH_WATER=50 timeout -s KILL 60 %t $at > %t.out && diff %t.native.out %t.out || exit 1; done'
#include <compactptr.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct CP_COMPACT node {
  int key;
  struct node *next;
};

enum { WORKERS = 4 };
static atomic_long progress;
static long trigger;
static pthread_t workers[WORKERS];
static struct node *lists[WORKERS];
static atomic_long cleaned;

static void cleanup(void *arg) {
  int id = (int)(long)arg;
  while (lists[id]) {
    struct node *x = lists[id];
    lists[id] = x->next;
    free(x);
  }
  atomic_fetch_add(&cleaned, 1);
}

static void *worker(void *arg) {
  int id = (int)(long)arg;
  pthread_cleanup_push(cleanup, arg);
  for (long i = 0;; i++) {
    struct node *x = malloc(sizeof *x);
    x->key = (int)i;
    x->next = lists[id];
    lists[id] = x;
    if (i % 500 == 499) {
      while (lists[id]->next) {
        struct node *y = lists[id]->next;
        lists[id]->next = y->next;
        free(y);
      }
      pthread_testcancel();
    }
  }
  pthread_cleanup_pop(0);
  return NULL;
}

static void *canceller(void *a) {
  (void)a;
  while (atomic_load(&progress) < trigger) {
    struct timespec ts = {0, 20000};
    nanosleep(&ts, NULL);
  }
  for (int i = 0; i < WORKERS; i++)
    pthread_cancel(workers[i]);
  return NULL;
}

int main(int argc, char **argv) {
  trigger = argc > 1 ? atol(argv[1]) : 150000;
  for (int i = 0; i < WORKERS; i++)
    pthread_create(&workers[i], NULL, worker, (void *)(long)i);
  pthread_t c;
  pthread_create(&c, NULL, canceller, NULL);
  struct node *big = NULL;
  for (long i = 0; i < 300000; i++) {
    struct node *x = malloc(sizeof *x);
    x->key = (int)(i & 1023);
    x->next = big;
    big = x;
    atomic_store(&progress, i);
  }
  pthread_join(c, NULL);
  for (int i = 0; i < WORKERS; i++)
    pthread_join(workers[i], NULL);
  long s = 0;
  for (struct node *p = big; p; p = p->next)
    s += p->key;
  printf("main %ld cleanups %ld\n", s, (long)atomic_load(&cleaned));
  return 0;
}
