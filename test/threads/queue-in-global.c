// A work queue the way C programs write it: a file-static struct holding
// the head of a list of compact jobs next to its mutex and condition
// variable (compact by inference, but in wide layout where it is
// declared, not in the heap).  Two workers wait in pthread_cond_wait on it
// while main builds the jobs and the switch runs; they must count as
// stopped (native regions), not hold the switch up: before, the wait was
// taken for a wait on a compact object and the program stopped after
// COMPACTPTR_SAFEPOINT_TIMEOUT.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 -Werror %s -lpthread -o %t.native
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %t.native > %t.expect
// RUN: env COMPACTPTR_ARENA_LIMIT=2M COMPACTPTR_STATS=1 COMPACTPTR_SAFEPOINT_TIMEOUT=5000 %t 2> %t.err | diff %t.expect -
// RUN: grep -q 'switch to wide mode' %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=2M COMPACTPTR_VERIFY=1 COMPACTPTR_SAFEPOINT_TIMEOUT=5000 %t | diff %t.expect -
// RUN: FileCheck %s < %t.expect
// CHECK: jobs 200000 sum 19999900000
#include <compactptr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT job {
  long n;
  struct job *next;
};

static struct work_queue {
  struct job *head;
  int closed;
  long taken, sum;
  pthread_mutex_t mu;
  pthread_cond_t cv;
} queue = {0, 0, 0, 0, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER};

static void *worker(void *arg) {
  (void)arg;
  pthread_mutex_lock(&queue.mu);
  for (;;) {
    while (!queue.head && !queue.closed)
      pthread_cond_wait(&queue.cv, &queue.mu);
    struct job *j = queue.head;
    if (!j)
      break;
    queue.head = j->next;
    queue.taken++;
    queue.sum += j->n;
    free(j);
  }
  pthread_mutex_unlock(&queue.mu);
  return NULL;
}

int main(void) {
  pthread_t t[2];
  for (int i = 0; i < 2; i++)
    pthread_create(&t[i], NULL, worker, NULL);
  struct job *list = NULL; // built while the workers wait: the switch
  for (long i = 0; i < 200000; i++) {
    struct job *j = malloc(sizeof *j);
    j->n = i;
    j->next = list;
    list = j;
  }
  pthread_mutex_lock(&queue.mu);
  queue.head = list;
  queue.closed = 1;
  pthread_cond_broadcast(&queue.cv);
  pthread_mutex_unlock(&queue.mu);
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  printf("jobs %ld sum %ld\n", queue.taken, queue.sum);
  return 0;
}
