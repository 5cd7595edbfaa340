/* A thread pool as libraries write it, in a file that declares no compact
 * type: workers wait for tasks in pthread_cond_wait, pool_wait_idle waits
 * for the workers the same way, a mutex guards the queue. */
#ifdef POOL_WITH_HEADER /* as the docs say to for CP_NATIVE: changes nothing */
#include <compactptr.h>
#endif
#include "pool.h"
#include <pthread.h>
#include <stdlib.h>

struct task {
  pool_task_fn f;
  void *arg;
  struct task *next;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER;
static pthread_cond_t idle = PTHREAD_COND_INITIALIZER;
static struct task *head, **tail = &head;
static int stopping, busy, nthreads;
static pthread_t threads[16];

static void *worker(void *arg) {
  (void)arg;
  for (;;) {
    struct task *t;
    pthread_mutex_lock(&mu);
    while (!head && !stopping)
      pthread_cond_wait(&work, &mu);
    if (!head) {
      pthread_mutex_unlock(&mu);
      return NULL;
    }
    t = head;
    head = t->next;
    if (!head)
      tail = &head;
    busy++;
    pthread_mutex_unlock(&mu);
    t->f(t->arg);
    free(t);
    pthread_mutex_lock(&mu);
    if (--busy == 0 && !head)
      pthread_cond_broadcast(&idle);
    pthread_mutex_unlock(&mu);
  }
}

void pool_start(int n) {
  for (nthreads = 0; nthreads < n; nthreads++)
    pthread_create(&threads[nthreads], NULL, worker, NULL);
}

void pool_submit(pool_task_fn f, void *arg) {
  struct task *t = malloc(sizeof *t);
  if (!t)
    abort();
  t->f = f;
  t->arg = arg;
  t->next = NULL;
  pthread_mutex_lock(&mu);
  *tail = t;
  tail = &t->next;
  pthread_cond_signal(&work);
  pthread_mutex_unlock(&mu);
}

void pool_wait_idle(void) {
  pthread_mutex_lock(&mu);
  while (head || busy)
    pthread_cond_wait(&idle, &mu);
  pthread_mutex_unlock(&mu);
}

void pool_stop(void) {
  int i;
  pthread_mutex_lock(&mu);
  stopping = 1;
  pthread_cond_broadcast(&work);
  pthread_mutex_unlock(&mu);
  for (i = 0; i < nthreads; i++)
    pthread_join(threads[i], NULL);
}
