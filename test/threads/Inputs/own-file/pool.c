/* A thread pool of its own file, as libraries ship them: no compact type
 * here, so the plugin leaves this file as it is.  Workers wait in
 * pthread_cond_wait for tasks; pool_wait_idle() waits until every task
 * submitted has run. */
#include "pool.h"
#include <pthread.h>
#include <stdlib.h>

/* Built with -DPOOL_COMPACT_TASK (threads/pool-task-arg.c), the task
 * struct is CP_COMPACT: its `void *arg`, which holds the caller's compact
 * object while the task waits in the queue, is then an untyped field the
 * switch moves. */
#ifdef POOL_COMPACT_TASK
#include <compactptr.h>
#define POOL_TASK CP_COMPACT
#else
#define POOL_TASK
#endif

struct POOL_TASK task {
  void (*fn)(void *);
  void *arg;
  struct task *next;
};

struct pool {
  pthread_mutex_t mu;
  pthread_cond_t work, idle;
  struct task *head, *tail;
  int active, stop, n;
  pthread_t *tids;
};

static void *worker(void *a) {
  struct pool *p = a;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (!p->head && !p->stop)
      pthread_cond_wait(&p->work, &p->mu);
    if (!p->head)
      break;
    struct task *t = p->head;
    p->head = t->next;
    if (!p->head)
      p->tail = NULL;
    p->active++;
    pthread_mutex_unlock(&p->mu);
    t->fn(t->arg);
    free(t);
    pthread_mutex_lock(&p->mu);
    if (--p->active == 0 && !p->head)
      pthread_cond_broadcast(&p->idle);
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

struct pool *pool_create(int n) {
  struct pool *p = calloc(1, sizeof *p);
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->work, NULL);
  pthread_cond_init(&p->idle, NULL);
  p->n = n;
  p->tids = calloc((size_t)n, sizeof *p->tids);
  for (int i = 0; i < n; i++)
    pthread_create(&p->tids[i], NULL, worker, p);
  return p;
}

void pool_submit(struct pool *p, void (*fn)(void *), void *arg) {
  struct task *t = malloc(sizeof *t);
  t->fn = fn;
  t->arg = arg;
  t->next = NULL;
  pthread_mutex_lock(&p->mu);
  if (p->tail)
    p->tail->next = t;
  else
    p->head = t;
  p->tail = t;
  pthread_cond_signal(&p->work);
  pthread_mutex_unlock(&p->mu);
}

void pool_wait_idle(struct pool *p) {
  pthread_mutex_lock(&p->mu);
  while (p->head || p->active)
    pthread_cond_wait(&p->idle, &p->mu);
  pthread_mutex_unlock(&p->mu);
}

void pool_destroy(struct pool *p) {
  pthread_mutex_lock(&p->mu);
  p->stop = 1;
  pthread_cond_broadcast(&p->work);
  pthread_mutex_unlock(&p->mu);
  for (int i = 0; i < p->n; i++)
    pthread_join(p->tids[i], NULL);
  free(p->tids);
  free(p);
}
