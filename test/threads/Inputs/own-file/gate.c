/* See gate.h.  Built without compactptr.h: its threads are libc's. */
#include "gate.h"
#include <pthread.h>
#include <stdlib.h>

struct gate {
  pthread_mutex_t mu;
  pthread_cond_t change;
  int waiting, open;
};

struct gate *gate_new(void) {
  struct gate *g = calloc(1, sizeof *g);
  pthread_mutex_init(&g->mu, NULL);
  pthread_cond_init(&g->change, NULL);
  return g;
}

void gate_pass(struct gate *g) {
  pthread_mutex_lock(&g->mu);
  g->waiting++;
  pthread_cond_broadcast(&g->change);
  while (!g->open)
    pthread_cond_wait(&g->change, &g->mu);
  pthread_mutex_unlock(&g->mu);
}

void gate_wait_for(struct gate *g, int n) {
  pthread_mutex_lock(&g->mu);
  while (g->waiting < n)
    pthread_cond_wait(&g->change, &g->mu);
  pthread_mutex_unlock(&g->mu);
}

void gate_open(struct gate *g) {
  pthread_mutex_lock(&g->mu);
  g->open = 1;
  pthread_cond_broadcast(&g->change);
  pthread_mutex_unlock(&g->mu);
}

void gate_free(struct gate *g) {
  pthread_mutex_destroy(&g->mu);
  pthread_cond_destroy(&g->change);
  free(g);
}

struct call {
  void (*fn)(void *);
  void *arg;
};

static void *run(void *p) {
  struct call *c = p;
  c->fn(c->arg);
  return NULL;
}

void gate_thread(void (*fn)(void *), void *arg) {
  struct call c = {fn, arg};
  pthread_t t;
  if (pthread_create(&t, NULL, run, &c) != 0)
    abort();
  pthread_join(t, NULL);
}
