/*
 * blocking_test.c - the runtime's definitions of the waits (blocking.c):
 * what each hands back, which waits become native regions and which do
 * not, a cancellation out of a region, and a switch while threads wait in
 * them.  This program's image holds the runtime, so its own calls count as
 * calls of a plugin-built module's code that the plugin did not rewrite
 * (a thread pool's file).  One process: the switch comes last.
 */
#define _GNU_SOURCE
#define CP_TEST_DEFINE_TYPES
#include "internal.h"
#include "testtypes.h"
#include "testutil.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <time.h>

static int state_of(const cp_thread_t *t) {
  return __atomic_load_n(&t->state, __ATOMIC_ACQUIRE);
}

/* Waits up to two seconds for t to reach state s. */
static void await_state(cp_thread_t *const *t, int s) {
  for (int i = 0; i < 2000; i++) {
    cp_thread_t *r = __atomic_load_n(t, __ATOMIC_ACQUIRE);
    if (r && state_of(r) == s)
      return;
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
  fail_msg("thread did not reach state %d", s);
}

/* ---- results: as libc's ------------------------------------------------- */

static pthread_mutex_t robust;
static void *die_holding(void *arg) {
  (void)arg;
  pthread_mutex_lock(&robust);
  return NULL;
}

static void test_results(void **state) {
  (void)state;
  cp_free(cp_alloc(&node_desc)); /* known, as a thread of compact code is */
  pthread_mutexattr_t a;
  pthread_mutex_t m;
  pthread_t th;

  /* A robust mutex whose owner died: taken by the try, EOWNERDEAD. */
  pthread_mutexattr_init(&a);
  pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
  pthread_mutex_init(&robust, &a);
  pthread_create(&th, NULL, die_holding, NULL);
  pthread_join(th, NULL);
  assert_int_equal(pthread_mutex_lock(&robust), EOWNERDEAD);
  pthread_mutex_consistent(&robust);
  assert_int_equal(pthread_mutex_unlock(&robust), 0);

  /* An error-checking one locked twice: EDEADLK from the lock. */
  pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_STALLED);
  pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
  pthread_mutex_init(&m, &a);
  assert_int_equal(pthread_mutex_lock(&m), 0);
  assert_int_equal(pthread_mutex_lock(&m), EDEADLK);
  assert_int_equal(pthread_mutex_unlock(&m), 0);
  pthread_mutex_destroy(&m);
  pthread_mutexattr_destroy(&a);

  /* A read lock under a write lock of this thread: EDEADLK. */
  pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;
  assert_int_equal(pthread_rwlock_wrlock(&l), 0);
  assert_int_equal(pthread_rwlock_rdlock(&l), EDEADLK);
  assert_int_equal(pthread_rwlock_unlock(&l), 0);

  /* A passed deadline; errno kept by a wait that succeeds at once. */
  pthread_cond_t c = PTHREAD_COND_INITIALIZER;
  struct timespec past;
  clock_gettime(CLOCK_REALTIME, &past);
  past.tv_sec--;
  pthread_mutex_init(&m, NULL);
  pthread_mutex_lock(&m);
  assert_int_equal(pthread_cond_timedwait(&c, &m, &past), ETIMEDOUT);
  pthread_mutex_unlock(&m);
  sem_t s;
  sem_init(&s, 0, 1);
  errno = ERANGE;
  assert_int_equal(sem_wait(&s), 0);
  assert_int_equal(errno, ERANGE);

  /* None of them left a region behind. */
  assert_int_equal(cp__native_nest, 0);
  assert_int_equal(state_of(cp__self), CP_TS_RUNNING);
}

/* ---- which waits are regions --------------------------------------------- */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go = PTHREAD_COND_INITIALIZER;
static int released;
static cp_thread_t *waiter, *locker, *deep_locker, *object_waiter;
static pthread_cond_t *cond_in_arena;

static void *wait_for_go(void *arg) {
  cp_free(cp_alloc(&node_desc));
  pthread_mutex_lock(&mu);
  __atomic_store_n((cp_thread_t **)arg, cp__self, __ATOMIC_RELEASE);
  while (!released)
    pthread_cond_wait(&go, &mu);
  pthread_mutex_unlock(&mu);
  assert_int_equal(cp__native_nest, 0);
  return NULL;
}

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
static void *lock_gate(void *arg) {
  cp_free(cp_alloc(&node_desc));
  __atomic_store_n((cp_thread_t **)arg, cp__self, __ATOMIC_RELEASE);
  pthread_mutex_lock(&gate);
  pthread_mutex_unlock(&gate);
  return NULL;
}

/* A plain function called back under a compact body: the region it
 * enters is unsafe, and no switch counts the thread as stopped. */
static void *lock_gate_under_compact_body(void *arg) {
  cp_free(cp_alloc(&node_desc));
  __atomic_store_n((cp_thread_t **)arg, cp__self, __ATOMIC_RELEASE);
  cp__compact_depth++;
  pthread_mutex_lock(&gate);
  pthread_mutex_unlock(&gate);
  cp__compact_depth--;
  return NULL;
}

/* A condition variable in the compact arena would move under its
 * waiter: no region. */
static void *wait_in_arena(void *arg) {
  cp_free(cp_alloc(&node_desc));
  pthread_mutex_lock(&mu);
  __atomic_store_n((cp_thread_t **)arg, cp__self, __ATOMIC_RELEASE);
  while (!released)
    pthread_cond_wait(cond_in_arena, &mu);
  pthread_mutex_unlock(&mu);
  return NULL;
}

static void test_regions(void **state) {
  (void)state;
  pthread_t th[4];
  pthread_mutex_lock(&gate);
  cp_thread_create(&th[0], NULL, wait_for_go, &waiter);
  cp_thread_create(&th[1], NULL, lock_gate, &locker);
  cp_thread_create(&th[2], NULL, lock_gate_under_compact_body, &deep_locker);
  await_state(&waiter, CP_TS_NATIVE);
  await_state(&locker, CP_TS_NATIVE);
  await_state(&deep_locker, CP_TS_NATIVE_UNSAFE);
  pthread_mutex_unlock(&gate);
  pthread_join(th[1], NULL);
  pthread_join(th[2], NULL);

  /* A condition variable in an array of compact objects. */
  assert_true(cp_is_compact());
  void *block = cp_alloc_array(&graph_desc, 4);
  assert_true(4 * graph_desc.compact_size >= sizeof(pthread_cond_t));
  assert_true(cp__arena_contains(&cp__compact_arena, block));
  cond_in_arena = block;
  pthread_cond_init(cond_in_arena, NULL);
  cp_thread_create(&th[3], NULL, wait_in_arena, &object_waiter);
  await_state(&object_waiter, CP_TS_RUNNING);
  struct timespec ts = {0, 50000000};
  nanosleep(&ts, NULL); /* blocked by now, and still running to the switch */
  assert_int_equal(state_of(object_waiter), CP_TS_RUNNING);
  pthread_mutex_lock(&mu);
  released = 1;
  pthread_cond_broadcast(cond_in_arena);
  pthread_cond_broadcast(&go);
  pthread_mutex_unlock(&mu);
  pthread_join(th[0], NULL);
  pthread_join(th[3], NULL);
  pthread_cond_destroy(cond_in_arena);
  cp_free(block);
  released = 0;
}

/* ---- a cancellation leaves the region ------------------------------------ */

static int seen_nest = -1, seen_state = -1;
static void note_on_cancel(void *arg) {
  (void)arg;
  seen_nest = (int)cp__native_nest;
  seen_state = state_of(cp__self);
  pthread_mutex_unlock(&mu);
}
static cp_thread_t *cancelled;
static void *wait_to_be_cancelled(void *arg) {
  (void)arg;
  cp_free(cp_alloc(&node_desc));
  pthread_mutex_lock(&mu);
  __atomic_store_n(&cancelled, cp__self, __ATOMIC_RELEASE);
  pthread_cleanup_push(note_on_cancel, NULL);
  for (;;)
    pthread_cond_wait(&go, &mu);
  pthread_cleanup_pop(0);
  return NULL;
}

static void test_cancel(void **state) {
  (void)state;
  pthread_t th;
  void *res;
  cp_thread_create(&th, NULL, wait_to_be_cancelled, NULL);
  await_state(&cancelled, CP_TS_NATIVE);
  /* Under mu, which the cancelled wait takes again before its cleanup
   * handlers run: the reads above come before the thread's end. */
  pthread_mutex_lock(&mu);
  pthread_cancel(th);
  pthread_mutex_unlock(&mu);
  pthread_join(th, &res);
  assert_ptr_equal(res, PTHREAD_CANCELED);
  assert_int_equal(seen_nest, 0);
  assert_int_equal(seen_state, CP_TS_RUNNING);
}

/* ---- the switch while threads wait --------------------------------------- */

static void test_switch_while_waiting(void **state) {
  (void)state;
  pthread_t th[2];
  cp_thread_t *w[2] = {NULL, NULL};
  pthread_mutex_lock(&gate);
  cp_thread_create(&th[0], NULL, wait_for_go, &w[0]);
  cp_thread_create(&th[1], NULL, lock_gate, &w[1]);
  await_state(&w[0], CP_TS_NATIVE);
  await_state(&w[1], CP_TS_NATIVE);
  cp_switch_to_wide(); /* COMPACTPTR_SAFEPOINT_TIMEOUT=300: they count */
  assert_false(cp_is_compact());
  pthread_mutex_unlock(&gate);
  pthread_mutex_lock(&mu);
  released = 1;
  pthread_cond_broadcast(&go);
  pthread_mutex_unlock(&mu);
  pthread_join(th[0], NULL);
  pthread_join(th[1], NULL);
  /* Wide: no more regions. */
  pthread_mutex_lock(&gate);
  assert_int_equal(cp__native_nest, 0);
  pthread_mutex_unlock(&gate);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_results),
      cmocka_unit_test(test_regions),
      cmocka_unit_test(test_cancel),
      cmocka_unit_test(test_switch_while_waiting),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
