// A thread pool the way C libraries write one: the pool and its job queue
// allocated with malloc, each holding a mutex and a condition variable
// next to the compact pointers of the queue (the pool holds the queue by
// value), workers sleeping in pthread_cond_wait on them, results gathered
// into a sharded table whose shards (a mutex and a list head each) come
// from calloc and grow with realloc.  None of these structs is annotated:
// holding a synchronization object and compact pointers makes them pinned
// (passes/Pinned.cpp), so the switch leaves them where the waiters sleep
// and translates their pointers in place.  Before, they were compact by
// inference: the switch would have moved a mutex under its waiters, so it
// waited for them until the program stopped (COMPACTPTR_SAFEPOINT_TIMEOUT,
// exit 70, every run).
// REQUIRES: plugin
// RUN: %clang %cflags -O1 -Werror %s -lpthread -o %t.native
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %t.native > %t.expect
// RUN: FileCheck %s < %t.expect
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_STATS=1 COMPACTPTR_SAFEPOINT_TIMEOUT=10000 %t 2> %t.err | diff %t.expect -
// RUN: FileCheck --check-prefix=STATS %s < %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=512K COMPACTPTR_VERIFY=1 COMPACTPTR_SAFEPOINT_TIMEOUT=10000 %t | diff %t.expect -
// RUN: env COMPACTPTR_ARENA_LIMIT=2M COMPACTPTR_VERIFY=1 COMPACTPTR_SAFEPOINT_TIMEOUT=10000 %t | diff %t.expect -
// RUN: env COMPACTPTR_ARENA_LIMIT=3M COMPACTPTR_VERIFY=1 COMPACTPTR_SAFEPOINT_TIMEOUT=10000 %t | diff %t.expect -
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_VERIFY=1 COMPACTPTR_SAFEPOINT_TIMEOUT=10000 %t 4 | FileCheck --check-prefix=FOUR %s
// CHECK: jobs 3000 items 120000 sum 7199940000 shards 16
// FOUR: jobs 3000 items 120000 sum 7199940000 shards 16
// STATS: compactptr: switch to wide mode (high-water mark)
#include <compactptr.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT item {
  long v;
  struct item *next;
};

struct CP_COMPACT job {
  struct job *next;
  long first, count;
};

/* A binary semaphore: no compact pointer, so a plain struct. */
struct bsem {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int v;
};

struct jobqueue {
  pthread_mutex_t mu;
  struct job *front, *rear;
  struct bsem *has_jobs;
  _Atomic int len; /* read under the pool's lock: no race for TSan */
};

struct pool {
  pthread_mutex_t count_lock;
  pthread_cond_t all_idle;
  int alive, working, stop;
  struct jobqueue queue; /* by value: the pool is pinned with it */
  pthread_t *threads;
};

struct shard {
  pthread_mutex_t mu;
  struct item *head;
  long n;
};

static struct shard *shards;
static int nshards;

static void bsem_post(struct bsem *b, int all) {
  pthread_mutex_lock(&b->mu);
  b->v = 1;
  if (all)
    pthread_cond_broadcast(&b->cv);
  else
    pthread_cond_signal(&b->cv);
  pthread_mutex_unlock(&b->mu);
}

static void bsem_wait(struct bsem *b) {
  pthread_mutex_lock(&b->mu);
  while (b->v != 1)
    pthread_cond_wait(&b->cv, &b->mu);
  b->v = 0;
  pthread_mutex_unlock(&b->mu);
}

static void queue_push(struct jobqueue *q, struct job *j) {
  pthread_mutex_lock(&q->mu);
  j->next = NULL;
  if (q->rear)
    q->rear->next = j;
  else
    q->front = j;
  q->rear = j;
  q->len++;
  bsem_post(q->has_jobs, 0);
  pthread_mutex_unlock(&q->mu);
}

static struct job *queue_pull(struct jobqueue *q) {
  pthread_mutex_lock(&q->mu);
  struct job *j = q->front;
  if (j) {
    q->front = j->next;
    if (!q->front)
      q->rear = NULL;
    q->len--;
    if (q->len > 0)
      bsem_post(q->has_jobs, 0);
  }
  pthread_mutex_unlock(&q->mu);
  return j;
}

/* A job: builds a list of items, then moves them into their shards. */
static void run(struct job *j) {
  struct item *mine = NULL;
  for (long k = 0; k < j->count; k++) {
    struct item *it = malloc(sizeof *it);
    it->v = j->first + k;
    it->next = mine;
    mine = it;
  }
  while (mine) {
    struct item *it = mine;
    mine = it->next;
    struct shard *s = &shards[it->v % nshards];
    pthread_mutex_lock(&s->mu);
    it->next = s->head;
    s->head = it;
    s->n++;
    pthread_mutex_unlock(&s->mu);
  }
}

static void *worker(void *arg) {
  struct pool *p = arg;
  pthread_mutex_lock(&p->count_lock);
  p->alive++;
  pthread_cond_broadcast(&p->all_idle); /* pool_new waits for all */
  pthread_mutex_unlock(&p->count_lock);
  for (;;) {
    bsem_wait(p->queue.has_jobs);
    if (p->stop)
      break;
    pthread_mutex_lock(&p->count_lock);
    p->working++;
    pthread_mutex_unlock(&p->count_lock);
    struct job *j = queue_pull(&p->queue);
    if (j) {
      run(j);
      free(j);
    }
    pthread_mutex_lock(&p->count_lock);
    if (--p->working == 0 && p->queue.len == 0)
      pthread_cond_signal(&p->all_idle);
    pthread_mutex_unlock(&p->count_lock);
  }
  pthread_mutex_lock(&p->count_lock);
  p->alive--;
  pthread_mutex_unlock(&p->count_lock);
  return NULL;
}

static struct pool *pool_new(int n) {
  struct pool *p = malloc(sizeof(struct pool));
  if (!p)
    return NULL;
  pthread_mutex_init(&p->count_lock, NULL);
  pthread_cond_init(&p->all_idle, NULL);
  p->alive = p->working = p->stop = 0;
  pthread_mutex_init(&p->queue.mu, NULL);
  p->queue.front = p->queue.rear = NULL;
  p->queue.len = 0;
  p->queue.has_jobs = malloc(sizeof(struct bsem));
  pthread_mutex_init(&p->queue.has_jobs->mu, NULL);
  pthread_cond_init(&p->queue.has_jobs->cv, NULL);
  p->queue.has_jobs->v = 0;
  p->threads = malloc(n * sizeof(pthread_t));
  for (int i = 0; i < n; i++)
    pthread_create(&p->threads[i], NULL, worker, p);
  /* Every worker counted alive before the pool is used: pool_destroy
   * wakes them until none is, and one not yet counted would sleep on. */
  pthread_mutex_lock(&p->count_lock);
  while (p->alive < n)
    pthread_cond_wait(&p->all_idle, &p->count_lock);
  pthread_mutex_unlock(&p->count_lock);
  return p;
}

static void pool_wait(struct pool *p) {
  pthread_mutex_lock(&p->count_lock);
  while (p->queue.len || p->working)
    pthread_cond_wait(&p->all_idle, &p->count_lock);
  pthread_mutex_unlock(&p->count_lock);
}

/* Posts collapse in a binary semaphore: wake the workers until none is
 * left (a spin loop, which polls for the switch). */
static void pool_destroy(struct pool *p, int n) {
  p->stop = 1;
  for (;;) {
    pthread_mutex_lock(&p->count_lock);
    int alive = p->alive;
    pthread_mutex_unlock(&p->count_lock);
    if (!alive)
      break;
    bsem_post(p->queue.has_jobs, 1);
    sched_yield();
  }
  for (int i = 0; i < n; i++)
    pthread_join(p->threads[i], NULL);
  free(p->queue.has_jobs);
  free(p->threads);
  free(p);
}

/* Generic code frees through `void *`. */
static void release(void *mem) { free(mem); }

int main(int argc, char **argv) {
  int nthreads = argc > 1 ? atoi(argv[1]) : 2;
  nshards = 8;
  shards = calloc(nshards, sizeof *shards);
  for (int i = 0; i < nshards; i++)
    pthread_mutex_init(&shards[i].mu, NULL);
  struct pool *p = pool_new(nthreads);
  long jobs = 0;
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < 1000; i++, jobs++) {
      struct job *j = malloc(sizeof *j);
      j->first = jobs * 40;
      j->count = 40;
      queue_push(&p->queue, j);
    }
    pool_wait(p);
    if (round == 0) {
      /* Twice the shards: the table grows, its old shards move along. */
      shards = realloc(shards, 2 * nshards * sizeof *shards);
      for (int i = nshards; i < 2 * nshards; i++)
        pthread_mutex_init(&shards[i].mu, NULL);
      nshards *= 2;
    }
  }
  pool_destroy(p, nthreads);
  long items = 0, sum = 0;
  for (int i = 0; i < nshards; i++)
    for (struct item *it = shards[i].head; it; it = it->next) {
      items++;
      sum += it->v;
    }
  printf("jobs %ld items %ld sum %ld shards %d\n", jobs, items, sum, nshards);
  for (int i = 0; i < nshards; i++)
    while (shards[i].head) {
      struct item *it = shards[i].head;
      shards[i].head = it->next;
      free(it);
    }
  release(shards);
  return 0;
}
