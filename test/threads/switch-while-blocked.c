// Several threads build lists of compact nodes, hand some of their nodes to
// the next thread (which frees them), meet at a barrier (blocked in
// pthread_cond_wait), and thread 0 reads a byte main writes to a pipe;
// main sleeps, writes and joins.  The high-water mark makes the switch
// pending in the middle: the first thread at a safepoint stops the others
// (threads blocked in native regions count as stopped) and switches.  The
// output is the same natively, with the plugin, and with the plugin under
// ThreadSanitizer.
// RUN: %clang %cflags -O1 -Werror %s -lpthread -o %t.native
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %t.native 2 > %t.out.native2
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_HIGH_WATER=50 COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2 > %t.out2 2> %t.err2
// RUN: diff %t.out.native2 %t.out2
// RUN: FileCheck --check-prefix=ERR %s < %t.err2
// RUN: %t.native 4 > %t.out.native4
// RUN: env COMPACTPTR_ARENA_LIMIT=2M COMPACTPTR_HIGH_WATER=50 COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 4 > %t.out4 2> %t.err4
// RUN: diff %t.out.native4 %t.out4
// RUN: FileCheck --check-prefix=ERR %s < %t.err4
// RUN: %t.native 8 > %t.out.native8
// RUN: env COMPACTPTR_ARENA_LIMIT=4M COMPACTPTR_HIGH_WATER=50 COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 8 > %t.out8 2> %t.err8
// RUN: diff %t.out.native8 %t.out8
// RUN: FileCheck --check-prefix=ERR %s < %t.err8
// ERR: compactptr: switch to wide mode (high-water mark) after {{[0-9]+}} allocations: moved {{[0-9]+}} objects, {{.*}} threads stopped, verified
// ERR: compactptr: mode wide
#include <compactptr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct CP_COMPACT node {
  int key;
  struct node *next;
};

enum { MAXT = 8, ROUNDS = 30, K = 2000, M = 700 };
static struct node *heads[MAXT], *mailbox[MAXT];
static int nthreads;
static pthread_mutex_t mail_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t bar_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t bar_cond = PTHREAD_COND_INITIALIZER;
static int bar_waiting, bar_gen;
static int pipefd[2];

static void barrier(void) {
  int gen;
  CP_NATIVE(pthread_mutex_lock(&bar_lock));
  gen = bar_gen;
  if (++bar_waiting == nthreads) {
    bar_waiting = 0;
    bar_gen++;
    pthread_cond_broadcast(&bar_cond);
  } else {
    while (gen == bar_gen)
      CP_NATIVE(pthread_cond_wait(&bar_cond, &bar_lock));
  }
  pthread_mutex_unlock(&bar_lock);
}

static void *worker(void *arg) {
  int id = (int)(long)arg, r, j;
  for (r = 0; r < ROUNDS; r++) {
    struct node *q;
    for (j = 0; j < K; j++) {
      struct node *n = malloc(sizeof *n);
      n->key = id * 1000000 + r * K + j;
      n->next = heads[id];
      heads[id] = n;
      if (j % 64 == 0)
        cp_safepoint();
    }
    /* The M newest go to the next thread; what the previous one sent is
     * freed here. */
    CP_NATIVE(pthread_mutex_lock(&mail_lock));
    for (j = 0; j < M; j++) {
      struct node *n = heads[id];
      heads[id] = n->next;
      n->next = mailbox[(id + 1) % nthreads];
      mailbox[(id + 1) % nthreads] = n;
    }
    q = mailbox[id];
    mailbox[id] = NULL;
    pthread_mutex_unlock(&mail_lock);
    while (q) {
      struct node *next = q->next;
      free(q);
      q = next;
    }
    if (id == 0) {
      char c;
      ssize_t got;
      CP_NATIVE(got = read(pipefd[0], &c, 1));
      if (got != 1)
        abort();
    }
    barrier();
  }
  return NULL;
}

int main(int argc, char **argv) {
  pthread_t t[MAXT];
  int i, r;
  nthreads = argc > 1 ? atoi(argv[1]) : 2;
  if (nthreads < 1 || nthreads > MAXT || pipe(pipefd) != 0)
    return 2;
  for (i = 0; i < nthreads; i++)
    pthread_create(&t[i], NULL, worker, (void *)(long)i);
  for (r = 0; r < ROUNDS; r++) {
    struct timespec ts = {0, 300000};
    CP_NATIVE(nanosleep(&ts, NULL));
    if (write(pipefd[1], "x", 1) != 1)
      return 3;
  }
  for (i = 0; i < nthreads; i++) {
    CP_NATIVE(pthread_join(t[i], NULL));
  }
  for (i = 0; i < nthreads; i++) {
    long count = 0, sum = 0, order = 0;
    struct node *p;
    for (p = heads[i]; p; p = p->next, count++) {
      sum += p->key;
      order = order * 31 + p->key % 1000;
    }
    printf("thread %d: %ld nodes, sum %ld, order %ld\n", i, count, sum, order);
  }
  return 0;
}
