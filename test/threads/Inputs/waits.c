/* A work queue as libraries write it, in a file that declares no compact
 * type: jobs go through a semaphore, workers read a shared table under a
 * read lock and meet the main thread at a barrier after each round; then
 * the lock kinds whose results a wait must hand back as libc does. */
#define _GNU_SOURCE
#include "waits.h"
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAXJOBS 64
static sem_t jobs_ready;
static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t drained = PTHREAD_COND_INITIALIZER;
static pthread_rwlock_t table_lock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_barrier_t round_end;
static long queue[MAXJOBS];
static int qhead, qtail, nworkers, stopping;
static pthread_t workers[8];
static waits_job_fn run_job;
static long done_jobs;

static void *worker(void *arg) {
  (void)arg;
  for (;;) {
    long j;
    sem_wait(&jobs_ready);
    pthread_mutex_lock(&qlock);
    if (qhead == qtail) { /* a round's end marker */
      int stop = stopping;
      pthread_mutex_unlock(&qlock);
      if (stop)
        return NULL;
      pthread_barrier_wait(&round_end);
      continue;
    }
    j = queue[qhead++ % MAXJOBS];
    if (qhead == qtail)
      pthread_cond_signal(&drained);
    pthread_mutex_unlock(&qlock);
    pthread_rwlock_rdlock(&table_lock);
    run_job(j);
    pthread_rwlock_unlock(&table_lock);
    pthread_mutex_lock(&qlock);
    done_jobs++;
    pthread_mutex_unlock(&qlock);
  }
}

void waits_start(int n, waits_job_fn job) {
  int i;
  run_job = job;
  nworkers = n;
  sem_init(&jobs_ready, 0, 0);
  pthread_barrier_init(&round_end, NULL, (unsigned)n + 1);
  for (i = 0; i < n; i++)
    pthread_create(&workers[i], NULL, worker, NULL);
}

/* Hands out jobs first..first+count-1, then one end marker per worker,
 * and waits at the barrier until every worker has seen its marker. */
void waits_round(long first, long count) {
  long i;
  int w;
  for (i = 0; i < count; i++) {
    pthread_mutex_lock(&qlock);
    queue[qtail++ % MAXJOBS] = first + i;
    pthread_mutex_unlock(&qlock);
    sem_post(&jobs_ready);
  }
  /* Markers only once the queue is empty: a worker takes a marker only
   * when no job is left before it. */
  pthread_mutex_lock(&qlock);
  while (qhead != qtail)
    pthread_cond_wait(&drained, &qlock);
  pthread_mutex_unlock(&qlock);
  for (w = 0; w < nworkers; w++)
    sem_post(&jobs_ready);
  pthread_barrier_wait(&round_end);
  /* Writers wait for the readers of the round. */
  pthread_rwlock_wrlock(&table_lock);
  pthread_rwlock_unlock(&table_lock);
}

void waits_stop(void) {
  int w;
  pthread_mutex_lock(&qlock);
  stopping = 1;
  pthread_mutex_unlock(&qlock);
  for (w = 0; w < nworkers; w++)
    sem_post(&jobs_ready);
  for (w = 0; w < nworkers; w++)
    pthread_join(workers[w], NULL);
  printf("jobs done: %ld\n", done_jobs);
}

/* ---- what each kind of wait hands back --------------------------------- */

static pthread_mutex_t robust;
static void *die_holding(void *arg) {
  (void)arg;
  pthread_mutex_lock(&robust);
  return NULL; /* ends holding it */
}

static pthread_mutex_t cmu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static int cleanups;
static void unlock_cmu(void *arg) {
  (void)arg;
  cleanups++;
  pthread_mutex_unlock(&cmu);
}
static void *wait_forever(void *arg) {
  (void)arg;
  pthread_mutex_lock(&cmu);
  pthread_cleanup_push(unlock_cmu, NULL);
  for (;;)
    pthread_cond_wait(&never, &cmu);
  pthread_cleanup_pop(1);
  return NULL;
}

void waits_semantics(void) {
  pthread_mutexattr_t a;
  pthread_mutex_t m;
  pthread_t t;
  struct timespec past;
  sem_t s;
  void *res;
  int r;

  /* A robust mutex whose owner died: taken, with EOWNERDEAD. */
  pthread_mutexattr_init(&a);
  pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
  pthread_mutex_init(&robust, &a);
  pthread_create(&t, NULL, die_holding, NULL);
  pthread_join(t, NULL);
  r = pthread_mutex_lock(&robust);
  printf("robust: %s\n", r == EOWNERDEAD ? "EOWNERDEAD" : strerror(r));
  pthread_mutex_consistent(&robust);
  pthread_mutex_unlock(&robust);
  printf("robust again: %d\n", pthread_mutex_lock(&robust));
  pthread_mutex_unlock(&robust);

  /* An error-checking mutex locked twice: EDEADLK, not a hang. */
  pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
  pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_STALLED);
  pthread_mutex_init(&m, &a);
  pthread_mutex_lock(&m);
  r = pthread_mutex_lock(&m);
  printf("errorcheck: %s\n", r == EDEADLK ? "EDEADLK" : strerror(r));
  pthread_mutex_unlock(&m);
  pthread_mutex_destroy(&m);

  /* A recursive one: twice, then twice unlocked. */
  pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&m, &a);
  printf("recursive: %d %d", pthread_mutex_lock(&m), pthread_mutex_lock(&m));
  printf(" %d %d\n", pthread_mutex_unlock(&m), pthread_mutex_unlock(&m));
  pthread_mutex_destroy(&m);

  /* Deadlines passed: ETIMEDOUT, and errno as libc leaves it. */
  clock_gettime(CLOCK_REALTIME, &past);
  past.tv_sec -= 1;
  pthread_mutex_lock(&cmu);
  r = pthread_cond_timedwait(&never, &cmu, &past);
  pthread_mutex_unlock(&cmu);
  printf("cond timedwait: %s\n", r == ETIMEDOUT ? "ETIMEDOUT" : strerror(r));
  sem_init(&s, 0, 0);
  errno = 0;
  r = sem_timedwait(&s, &past);
  printf("sem timedwait: %d %s\n", r, errno == ETIMEDOUT ? "ETIMEDOUT" : strerror(errno));
  /* A wait that succeeds at once leaves errno alone. */
  sem_post(&s);
  errno = ERANGE;
  r = sem_wait(&s);
  printf("sem wait: %d, errno %s\n", r, errno == ERANGE ? "kept" : strerror(errno));

  /* A thread cancelled in pthread_cond_wait: its cleanup handler runs,
   * the join reports it cancelled. */
  pthread_create(&t, NULL, wait_forever, NULL);
  usleep(20000);
  pthread_cancel(t);
  pthread_join(t, &res);
  printf("cancelled: %s, cleanups %d\n", res == PTHREAD_CANCELED ? "yes" : "no",
         cleanups);
  pthread_mutexattr_destroy(&a);
}
