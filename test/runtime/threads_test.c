/*
 * threads_test.c - the runtime with several threads: per-thread heaps,
 * frees of other threads' objects, threads that exit, the stop-the-world
 * switch with threads blocked in native regions, the refusals, and fork.
 * One case per process (the switch happens once):
 *   usage: threads_test CASE [THREADS]
 * Code here plays the part of plugin-built code: compact pointers held
 * across a safepoint live in shadow-stack frames or registered roots, and
 * every access picks the layout by mode (testtypes.h).
 */
#define _GNU_SOURCE
#define CP_TEST_DEFINE_TYPES
#include "internal.h"
#include "testtypes.h"
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

static int nthreads = 4;

static uint32_t cookie(void *p) { return (uint32_t)((uintptr_t)p * 2654435761u); }

static uint64_t live_objects(cp_type_desc_t *d) {
  cp_stats_t st;
  cp_type_stats_t ts[16];
  uint32_t n = cp_get_stats(&st, ts, 16);
  for (uint32_t i = 0; i < n && i < 16; i++)
    if (!strcmp(ts[i].name, d->name))
      return ts[i].live_objects;
  return 0;
}

static void check_all_slabs(void) {
  cp__reg_lock();
  cp__lock();
  for (uint32_t k = 0; k < cp__ntypes; k++)
    for (cp_slab_t *s = cp__types[k]->all; s; s = s->next_all)
      assert_true(cp__slab_is_valid(s));
  assert_true(cp__buddy_is_valid(cp__current_arena()));
  cp__unlock();
  cp__reg_unlock();
}

static uint32_t known_threads(void) {
  cp__reg_lock();
  uint32_t n = cp__nthreads;
  cp__reg_unlock();
  return n;
}

/* ---- churn: every thread allocates and frees its own objects ------------- */
enum { KEEP = 3000, OPS = 300000 };
typedef struct churn {
  uint64_t seed;
  void *objs[KEEP];
  int types[KEEP];
} churn_t;
static cp_type_desc_t *desc_of(int t) { return t ? &graph_desc : &node_desc; }

static void *churn_run(void *arg) {
  churn_t *w = arg;
  for (long i = 0; i < OPS; i++) {
    int k = (int)rng_below(&w->seed, KEEP);
    if (w->objs[k]) {
      uint32_t *c = field_addr(w->objs[k], desc_of(w->types[k]), 0);
      assert_int_equal(*c, cookie(w->objs[k]));
      cp_free(w->objs[k]);
      w->objs[k] = NULL;
    } else {
      int t = (int)rng_below(&w->seed, 2);
      void *p = cp_alloc(desc_of(t));
      *(uint32_t *)field_addr(p, desc_of(t), 0) = cookie(p);
      w->objs[k] = p;
      w->types[k] = t;
    }
  }
  return NULL;
}

static void case_churn(void **state) {
  (void)state;
  static churn_t w[8];
  pthread_t th[8];
  for (int i = 0; i < nthreads; i++) {
    w[i].seed = 11 + (uint64_t)i * 7;
    assert_int_equal(cp_thread_create(&th[i], NULL, churn_run, &w[i]), 0);
  }
  for (int i = 0; i < nthreads; i++)
    assert_int_equal(pthread_join(th[i], NULL), 0);
  uint64_t live = 0;
  for (int i = 0; i < nthreads; i++)
    for (int k = 0; k < KEEP; k++)
      if (w[i].objs[k]) {
        live++;
        assert_int_equal(*(uint32_t *)field_addr(w[i].objs[k], desc_of(w[i].types[k]), 0),
                         cookie(w[i].objs[k]));
      }
  assert_int_equal(live_objects(&node_desc) + live_objects(&graph_desc), live);
  check_all_slabs();
  /* The workers are forgotten; their objects stay, in orphan slabs. */
  assert_int_equal(known_threads(), 1);
  for (int i = 0; i < nthreads; i++)
    for (int k = 0; k < KEEP; k++)
      cp_free(w[i].objs[k]);
  assert_int_equal(live_objects(&node_desc) + live_objects(&graph_desc), 0);
  check_all_slabs();
}

/* ---- producers and consumers: every free is another thread's -------------- */
enum { QCAP = 4096, PER_PRODUCER = 400000 };
static struct {
  pthread_mutex_t m;
  pthread_cond_t nonempty, nonfull;
  void *q[QCAP];
  size_t head, n;
  int producers_left;
} queue = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
           PTHREAD_COND_INITIALIZER, {0}, 0, 0, 0};

static void *producer(void *arg) {
  (void)arg;
  for (int i = 0; i < PER_PRODUCER; i++) {
    void *p = cp_alloc(&node_desc);
    NODE_KEY(p) = (int)cookie(p);
    pthread_mutex_lock(&queue.m);
    while (queue.n == QCAP)
      pthread_cond_wait(&queue.nonfull, &queue.m);
    queue.q[(queue.head + queue.n++) % QCAP] = p;
    pthread_cond_signal(&queue.nonempty);
    pthread_mutex_unlock(&queue.m);
  }
  pthread_mutex_lock(&queue.m);
  queue.producers_left--;
  pthread_cond_broadcast(&queue.nonempty);
  pthread_mutex_unlock(&queue.m);
  return NULL;
}

static void *consumer(void *arg) {
  long *freed = arg;
  for (;;) {
    pthread_mutex_lock(&queue.m);
    while (queue.n == 0 && queue.producers_left)
      pthread_cond_wait(&queue.nonempty, &queue.m);
    if (queue.n == 0) {
      pthread_mutex_unlock(&queue.m);
      return NULL;
    }
    void *p = queue.q[queue.head];
    queue.head = (queue.head + 1) % QCAP;
    queue.n--;
    pthread_cond_signal(&queue.nonfull);
    pthread_mutex_unlock(&queue.m);
    assert_int_equal(NODE_KEY(p), (int)cookie(p));
    cp_free(p);
    ++*freed;
  }
}

static void case_cross_free(void **state) {
  (void)state;
  int np = nthreads / 2 > 0 ? nthreads / 2 : 1, nc = nthreads - np > 0 ? nthreads - np : 1;
  queue.producers_left = np;
  pthread_t th[16];
  static long freed[16];
  for (int i = 0; i < np; i++)
    assert_int_equal(cp_thread_create(&th[i], NULL, producer, NULL), 0);
  for (int i = 0; i < nc; i++)
    assert_int_equal(cp_thread_create(&th[np + i], NULL, consumer, &freed[i]), 0);
  for (int i = 0; i < np + nc; i++)
    pthread_join(th[i], NULL);
  long total = 0;
  for (int i = 0; i < nc; i++)
    total += freed[i];
  assert_int_equal(total, (long)np * PER_PRODUCER);
  assert_int_equal(live_objects(&node_desc), 0);
  check_all_slabs();
  /* The queue holds at most QCAP nodes: the slabs of freed nodes were
   * reused or returned, so the arena never held more than a few MiB. */
  uint64_t peak = cp__compact_arena.peak_pages << CP_PAGE_SHIFT;
  print_message("arena peak %llu KiB for %d nodes\n",
                (unsigned long long)(peak >> 10), np * PER_PRODUCER);
  assert_true(peak < ((uint64_t)8 << 20));
}

/* ---- a thread exits; another frees its objects and reuses the memory ------ */
enum { EXITED_N = 200000 };
static void *exited_objs[EXITED_N];
static void *alloc_and_exit(void *arg) {
  (void)arg;
  for (int i = 0; i < EXITED_N; i++) {
    exited_objs[i] = cp_alloc(&tree_desc);
    *(long *)exited_objs[i] = i;
  }
  return NULL;
}

static void case_exited_thread(void **state) {
  (void)state;
  pthread_t th;
  /* A thread the runtime meets at its first allocation (plain
   * pthread_create). */
  assert_int_equal(pthread_create(&th, NULL, alloc_and_exit, NULL), 0);
  pthread_join(th, NULL);
  assert_int_equal(known_threads(), 1);
  uint64_t used_before = cp__compact_arena.used_pages;
  for (int i = 0; i < EXITED_N; i++) {
    assert_int_equal(*(long *)exited_objs[i], i);
    cp_free(exited_objs[i]);
  }
  assert_int_equal(live_objects(&tree_desc), 0);
  /* As much again, by this thread: orphans are adopted (or released and
   * taken again), so the arena does not grow. */
  for (int i = 0; i < EXITED_N; i++)
    exited_objs[i] = cp_alloc(&tree_desc);
  print_message("pages in use: %llu after the exit, %llu after reuse\n",
                (unsigned long long)used_before,
                (unsigned long long)cp__compact_arena.used_pages);
  assert_true(cp__compact_arena.used_pages <= used_before);
  check_all_slabs();
}

/* ---- a destructor that allocates after the runtime's exit hook ----------- */
static pthread_key_t late_key;
static int late_rounds;
static void late_destructor(void *arg) {
  (void)arg;
  /* Allocates, links and frees compact objects, and asks to run again
   * (the runtime's hook may already have run, or run again after this). */
  void *a = cp_alloc(&node_desc), *b = cp_alloc(&node_desc);
  SET_NEXT(a, b);
  assert_ptr_equal(NODE_NEXT(a), b);
  cp_free(a);
  cp_free(b);
  if (++late_rounds < 3)
    pthread_setspecific(late_key, (void *)1);
}
static void *late_thread(void *arg) {
  (void)arg;
  void *p = cp_alloc(&node_desc); /* the runtime's key is set first */
  pthread_setspecific(late_key, (void *)1);
  cp_free(p);
  return NULL;
}

static void case_exit_destructor(void **state) {
  (void)state;
  assert_int_equal(pthread_key_create(&late_key, late_destructor), 0);
  for (int i = 0; i < 20; i++) {
    late_rounds = 0;
    pthread_t th;
    assert_int_equal(cp_thread_create(&th, NULL, late_thread, NULL), 0);
    pthread_join(th, NULL);
    assert_int_equal(late_rounds, 3);
  }
  assert_int_equal(live_objects(&node_desc), 0);
  assert_int_equal(known_threads(), 1);
  check_all_slabs();
}

/* ---- the switch while threads run, block and exchange objects ------------ */
/* Each worker owns list heads[i] (registered roots) and, every round,
 * pushes K nodes, sends its M newest to the next worker's mailbox, frees
 * what its own mailbox holds (objects another thread allocated), meets the
 * others at a barrier (blocked in pthread_cond_wait) and, worker 0, reads a
 * byte main writes to a pipe.  One worker switches in the middle, or the
 * high-water mark does.  Blocking calls are native regions. */
enum { ROUNDS = 40, K = 3000, M = 1000 };
static void *heads[8], *mailbox[8];
static pthread_mutex_t mail_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  pthread_mutex_t m;
  pthread_cond_t c;
  int waiting, generation;
} barrier = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
static int pipefd[2];
static int switch_by_request;
static volatile int interrupted; /* EINTR or a changed errno seen */

static void barrier_wait(void) {
  CP_NATIVE(pthread_mutex_lock(&barrier.m));
  int gen = barrier.generation;
  if (++barrier.waiting == nthreads) {
    barrier.waiting = 0;
    barrier.generation++;
    pthread_cond_broadcast(&barrier.c);
  } else {
    while (gen == barrier.generation) {
      int r;
      errno = 12345;
      CP_NATIVE(r = pthread_cond_wait(&barrier.c, &barrier.m));
      if (r != 0 || errno != 12345)
        interrupted = 1;
    }
  }
  pthread_mutex_unlock(&barrier.m);
}

static void *mid_worker(void *arg) {
  int id = (int)(intptr_t)arg;
  void *n = NULL, *q = NULL;
  cp_root_desc_t roots[2] = {{&n, CP_ROOT_POINTER, 1, &node_desc, "n"},
                             {&q, CP_ROOT_POINTER, 1, &node_desc, "q"}};
  cp_frame_t fr = {0, 2, roots};
  cp_frame_push(&fr);
  for (int r = 0; r < ROUNDS; r++) {
    for (int j = 0; j < K; j++) {
      n = cp_alloc(&node_desc);
      NODE_KEY(n) = id * 1000000 + r * K + j;
      SET_NEXT(n, heads[id]);
      heads[id] = n;
      if (j % 64 == 0)
        cp_safepoint();
    }
    n = NULL;
    /* Send the M newest to the next worker. */
    CP_NATIVE(pthread_mutex_lock(&mail_lock));
    int to = (id + 1) % nthreads;
    for (int j = 0; j < M; j++) {
      q = heads[id];
      heads[id] = NODE_NEXT(q);
      SET_NEXT(q, mailbox[to]);
      mailbox[to] = q;
    }
    q = mailbox[id];
    mailbox[id] = NULL;
    pthread_mutex_unlock(&mail_lock);
    /* Free what the previous worker sent. */
    for (int j = 0; q; j++) {
      n = NODE_NEXT(q);
      cp_free(q);
      q = n;
      if (j % 64 == 0)
        cp_safepoint();
    }
    n = NULL;
    if (switch_by_request && id == 1 % nthreads && r == ROUNDS / 2)
      cp_switch_to_wide();
    if (id == 0) {
      char c;
      ssize_t got;
      errno = 12345;
      CP_NATIVE(got = read(pipefd[0], &c, 1));
      if (got != 1 || errno != 12345)
        interrupted = 1;
    }
    barrier_wait();
    cp_safepoint();
  }
  cp_frame_pop(&fr);
  return NULL;
}

static void run_mid(int by_request) {
  switch_by_request = by_request;
  cp__switch_parallel_bytes = 0; /* the copy's helper threads too */
  assert_int_equal(pipe(pipefd), 0);
  assert_int_equal(cp_root_register(heads, 8), 0);
  assert_int_equal(cp_root_register(mailbox, 8), 0);
  pthread_t th[8];
  for (int i = 0; i < nthreads; i++)
    assert_int_equal(cp_thread_create(&th[i], NULL, mid_worker,
                                      (void *)(intptr_t)i), 0);
  for (int r = 0; r < ROUNDS; r++) {
    struct timespec ts = {0, 200000};
    int rc;
    errno = 12345;
    CP_NATIVE(rc = nanosleep(&ts, NULL));
    if (rc != 0 || errno != 12345)
      interrupted = 1;
    ssize_t w = write(pipefd[1], "x", 1);
    assert_int_equal(w, 1);
  }
  for (int i = 0; i < nthreads; i++) {
    int rc;
    CP_NATIVE(rc = pthread_join(th[i], NULL));
    assert_int_equal(rc, 0);
  }
  assert_false(interrupted);
  assert_false(cp_is_compact());
  assert_true(sysconf(_SC_NPROCESSORS_ONLN) < 2 || cp__switch_helpers > 0);
  /* Each list holds, newest first, the K - M oldest nodes of every round. */
  uint64_t total = 0;
  for (int i = 0; i < nthreads; i++) {
    int r = ROUNDS - 1, j = K - M - 1;
    long count = 0;
    for (void *p = heads[i]; p; p = NODE_NEXT(p), count++) {
      assert_int_equal(NODE_KEY(p), i * 1000000 + r * K + j);
      if (--j < 0) {
        r--;
        j = K - M - 1;
      }
    }
    assert_int_equal(count, (long)ROUNDS * (K - M));
    total += (uint64_t)count;
  }
  uint64_t mailed = 0;
  for (int i = 0; i < nthreads; i++)
    for (void *p = mailbox[i]; p; p = NODE_NEXT(p))
      mailed++;
  /* What the last round sent is still there unless its receiver took it
   * in the same round. */
  assert_true(mailed % M == 0 && mailed <= (uint64_t)nthreads * M);
  assert_int_equal(live_objects(&node_desc), total + mailed);
  check_all_slabs();
}

static void case_switch_request(void **state) {
  (void)state;
  run_mid(1);
}
static void case_switch_high_water(void **state) {
  (void)state;
  run_mid(0);
}

/* ---- refusals: a thread that never stops --------------------------------- */
static volatile int spin;
static void *spin_in_compact_body(void *arg) {
  (void)arg;
  cp_alloc(&node_desc);
  cp__compact_depth = 1; /* as a dual function's dispatch does */
  while (!spin)
    cp_safepoint(); /* deferred: a compact body is active */
  return NULL;
}
static void *blocked_outside_native(void *arg) {
  (void)arg;
  cp_alloc(&node_desc);
  char c;
  ssize_t r = read(pipefd[0], &c, 1); /* not a native region */
  (void)r;
  return NULL;
}
static void *native_under_compact_body(void *arg) {
  (void)arg;
  cp_alloc(&node_desc);
  cp__compact_depth = 1;
  char c;
  ssize_t r;
  CP_NATIVE(r = read(pipefd[0], &c, 1));
  (void)r;
  return NULL;
}

static void switch_against(void *(*fn)(void *)) {
  if (pipe(pipefd) != 0)
    _exit(3);
  pthread_t th;
  cp_thread_create(&th, NULL, fn, NULL);
  struct timespec ts = {0, 50000000};
  nanosleep(&ts, NULL);
  cp_alloc(&node_desc);
  cp_switch_to_wide();
}
static void refuse_compact_body(void *arg) {
  (void)arg;
  switch_against(spin_in_compact_body);
}
static void refuse_blocked(void *arg) {
  (void)arg;
  switch_against(blocked_outside_native);
}
static void refuse_native_unsafe(void *arg) {
  (void)arg;
  switch_against(native_under_compact_body);
}

/* Code a blocking call runs back (pthread_once's init routine, a
 * cancelled thread's cleanup handler) allocates inside the call's native
 * region: the region ends there, the thread runs again, and
 * cp_native_leave finds the region gone. */
static void alloc_ends_region(void) {
  cp_native_enter();
  cp_native_enter();
  assert_int_equal(cp__native_nest, 2);
  void *p = cp_alloc(&node_desc);
  assert_non_null(p);
  assert_int_equal(cp__native_nest, 0);
  assert_int_equal(__atomic_load_n(&cp__self->state, __ATOMIC_ACQUIRE), CP_TS_RUNNING);
  cp_native_leave();
  cp_native_leave();
  assert_int_equal(cp__native_nest, 0);
  assert_int_equal(__atomic_load_n(&cp__self->state, __ATOMIC_ACQUIRE), CP_TS_RUNNING);
  cp_free(p);
}
/* A jump back to a setjmp out of native regions (a cancelled thread's
 * cleanup handler, a handler's siglongjmp out of a blocking read) leaves
 * the regions entered since the setjmp, and no others: cp__jump_landed
 * with what the plugin saves at the setjmp. */
static void jump_leaves_region(void) {
  jmp_buf env;
  cp_frame_t *top = cp__frame_top;
  unsigned depth = cp__compact_depth, nest = cp__native_nest;
  if (setjmp(env) == 0) {
    cp_native_enter();
    cp_native_enter();
    longjmp(env, 1);
  }
  cp__jump_landed(top, depth, nest);
  assert_int_equal(cp__native_nest, 0);
  assert_int_equal(__atomic_load_n(&cp__self->state, __ATOMIC_ACQUIRE),
                   CP_TS_RUNNING);
  assert_ptr_equal(cp__heap, cp__self->heap);
  assert_ptr_equal(cp__frame_top, top);

  cp_native_enter(); /* a setjmp inside a region, and a jump within it */
  nest = cp__native_nest;
  if (setjmp(env) == 0) {
    cp_native_enter();
    longjmp(env, 1);
  }
  cp__jump_landed(top, depth, nest);
  assert_int_equal(cp__native_nest, 1);
  assert_int_equal(__atomic_load_n(&cp__self->state, __ATOMIC_ACQUIRE),
                   CP_TS_NATIVE);
  cp_native_leave();
  assert_int_equal(__atomic_load_n(&cp__self->state, __ATOMIC_ACQUIRE),
                   CP_TS_RUNNING);
  void *p = cp_alloc(&node_desc);
  assert_non_null(p);
  cp_free(p);
}
static void switch_in_native(void *arg) {
  (void)arg;
  cp_alloc(&node_desc);
  CP_NATIVE(cp_switch_to_wide());
}

static void case_refusals(void **state) {
  (void)state;
  expect_fatal(switch_in_native, NULL, "cp_switch_to_wide() called inside a native region");
  expect_fatal(refuse_compact_body, NULL,
               "did not stop at a safepoint within 300 ms "
               "(COMPACTPTR_SAFEPOINT_TIMEOUT): it is running");
  expect_fatal(refuse_compact_body, NULL,
               "its last safepoint was deferred under a compact body");
  expect_fatal(refuse_blocked, NULL,
               "it is blocked in the kernel (state S) outside a native region");
  expect_fatal(refuse_native_unsafe, NULL,
               "it is in a native region it entered under a compact body "
               "(cp__compact_depth 1)");
  expect_fatal(refuse_native_unsafe, NULL, "thread 2 (tid ");
  alloc_ends_region(); /* in this process: after the children above */
  jump_leaves_region();
}

/* ---- fork while threads allocate ------------------------------------------ */
static volatile int fork_stop;
/* A churner fills its array, then frees all of it, over and over: its
 * slabs empty out and go back to the arena all the time, and that takes
 * the heap lock, which fork holds (a churner stopped by fork between
 * taking an empty slab out of its bin and releasing it left a slab in no
 * list, still its own; in the child, the switch put its counterpart into
 * the freed heap and crashed). */
enum { FORK_KEEP = 16384 };
static void *fork_churner(void *arg) {
  uint64_t seed = (uint64_t)(uintptr_t)arg + 1;
  static _Thread_local void *keep[FORK_KEEP];
  while (!fork_stop) {
    for (int k = 0; k < FORK_KEEP; k++)
      keep[k] = cp_alloc(rng_below(&seed, 2) ? &node_desc : &tree_desc);
    for (int k = 0; k < FORK_KEEP; k++)
      cp_free(keep[k]);
  }
  return NULL;
}

/* In the child: allocate, free, switch, check. */
static int child_work(void) {
  static void *list;
  cp_root_register(&list, 1);
  for (int i = 0; i < 2000; i++) {
    void *p = cp_alloc(&node_desc);
    NODE_KEY(p) = i;
    SET_NEXT(p, list);
    list = p;
  }
  for (int i = 0; i < 1000; i++) {
    void *p = list;
    list = NODE_NEXT(p);
    cp_free(p);
  }
  cp_switch_to_wide();
  int expect = 999;
  for (void *p = list; p; p = NODE_NEXT(p))
    if (NODE_KEY(p) != expect--)
      return 1;
  void *p = cp_alloc(&node_desc); /* wide now */
  cp_free(p);
  return expect == -1 && !cp_is_compact() ? 0 : 2;
}

static void case_fork(void **state) {
  (void)state;
  int forks = 500;
  const char *env = getenv("THREADS_TEST_FORKS");
  if (env)
    forks = atoi(env);
  pthread_t th[8];
  for (int i = 0; i < 8; i++)
    assert_int_equal(cp_thread_create(&th[i], NULL, fork_churner,
                                      (void *)(uintptr_t)i), 0);
  int hangs = 0, failures = 0;
  for (int f = 0; f < forks; f++) {
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
      alarm(20); /* a hang ends with SIGALRM */
      _exit(child_work());
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
      hangs++;
    else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      failures++;
  }
  fork_stop = 1;
  for (int i = 0; i < 8; i++)
    pthread_join(th[i], NULL);
  print_message("%d forks: %d hangs, %d failures\n", forks, hangs, failures);
  assert_int_equal(hangs, 0);
  assert_int_equal(failures, 0);
  check_all_slabs();
}

/* ---- thread creation without room -----------------------------------------
 */
/* Under an address-space limit with no room left, creating a thread fails
 * as pthread_create does (EAGAIN; thrd_error from thrd_create), and the
 * runtime forgets the record it had begun: once the limit is raised, a
 * thread is created, known and runs. */
static void *note_ran(void *arg) {
  *(int *)arg = 1;
  return NULL;
}
static int create_without_room(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  unsigned long pages = 0;
  if (!f || fscanf(f, "%lu", &pages) != 1)
    return 3;
  fclose(f);
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl) != 0)
    return 4;
  rlim_t hard = rl.rlim_cur;
  rl.rlim_cur = pages * 4096ul; /* what is mapped now, no more */
  if (setrlimit(RLIMIT_AS, &rl) != 0)
    return 4;
  uint32_t known = known_threads();
  pthread_t th;
  int ran = 0;
  if (cp_thread_create(&th, NULL, note_ran, &ran) != EAGAIN)
    return 5;
  unsigned long c11;
  if (cp_thrd_create(&c11, NULL, NULL) != thrd_error)
    return 6;
  if (known_threads() != known)
    return 7;
  rl.rlim_cur = hard;
  if (setrlimit(RLIMIT_AS, &rl) != 0)
    return 4;
  if (cp_thread_create(&th, NULL, note_ran, &ran) != 0 ||
      pthread_join(th, NULL) != 0 || !ran)
    return 8;
  return 0;
}
static void case_create_no_room(void **state) {
  (void)state;
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
  skip(); /* ASan's own allocator stops the process without address space */
#endif
#endif
  void *p = cp_alloc(&node_desc); /* this thread's heap exists */
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0)
    _exit(create_without_room());
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
  cp_free(p);
}

/* ---- a thread's result, kept over a switch until its join ----------------
 * Each thread ends with a result: a node (kept with cp_thread_result, as
 * the plugin wraps a start routine's return value or pthread_exit's
 * argument), the address of a node's field, a static's
 * address or NULL.  They have all ended (forgotten by the runtime) before
 * the switch, and are joined after it: the compact addresses come back
 * translated, the others as they were.  One thread is joined before the
 * switch, so its result is no root any more. */
static long not_compact;
static void *end_with_result(void *arg) {
  long i = (long)arg;
  if (i % 4 == 2)
    return &not_compact;
  if (i % 4 == 3)
    return NULL;
  void *p = cp_alloc(&node_desc);
  NODE_KEY(p) = (int)(1000 + i);
  if (i % 4 == 1)
    pthread_exit(cp_thread_result(p));
  /* Its "next" field: in the wide object the field is at its wide offset. */
  return cp_thread_result(i == 4 ? (char *)p + offsetof(struct c_node, next)
                                 : p);
}

static void case_result_over_switch(void **state) {
  (void)state;
  enum { N = 8 };
  pthread_t th[N];
  for (long i = 0; i < N; i++)
    assert_int_equal(cp_thread_create(&th[i], NULL, end_with_result, (void *)i),
                     0);
  void *first;
  assert_int_equal(cp_thread_join(th[0], &first), 0);
  assert_true(cp__arena_contains(&cp__compact_arena, first));
  while (known_threads() > 1)
    sched_yield();
  cp_switch_to_wide();
  assert_true(cp__wide);
  for (long i = 1; i < N; i++) {
    void *r;
    assert_int_equal(cp_thread_join(th[i], &r), 0);
    if (i % 4 == 2) {
      assert_ptr_equal(r, &not_compact);
    } else if (i % 4 == 3) {
      assert_null(r);
    } else {
      assert_true(cp__arena_contains(&cp__wide_arena, r));
      void *obj = i == 4 ? (char *)r - offsetof(struct w_node, next) : r;
      assert_int_equal(NODE_KEY(obj), (int)(1000 + i));
      cp_free(obj);
    }
  }
  assert_int_equal(live_objects(&node_desc), 1); /* the one joined before */
  check_all_slabs();
}

#define CASE(name) {#name, case_##name}
static const struct {
  const char *name;
  void (*fn)(void **);
} cases[] = {
    CASE(churn),          CASE(cross_free),
    CASE(exited_thread),  CASE(exit_destructor),
    CASE(switch_request), CASE(switch_high_water),
    CASE(refusals),       CASE(fork),
    CASE(create_no_room), CASE(result_over_switch),
};

int main(int argc, char **argv) {
  if (argc == 3)
    nthreads = atoi(argv[2]);
  if (nthreads < 1 || nthreads > 8) {
    fprintf(stderr, "threads_test: THREADS is 1 to 8\n");
    return 2;
  }
  for (size_t i = 0; argc >= 2 && i < sizeof cases / sizeof cases[0]; i++) {
    if (strcmp(argv[1], cases[i].name))
      continue;
    print_message("%s, %d threads\n", cases[i].name, nthreads);
    const struct CMUnitTest t[] = {{cases[i].name, cases[i].fn, NULL, NULL, NULL}};
    return _cmocka_run_group_tests(cases[i].name, t, 1, NULL, NULL);
  }
  fprintf(stderr, "usage: %s CASE [THREADS]\ncases:", argv[0]);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    fprintf(stderr, " %s", cases[i].name);
  fprintf(stderr, "\n");
  return 2;
}
