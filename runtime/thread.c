/*
 * thread.c - the threads the runtime knows: how they become known, how
 * they are forgotten, and fork.
 *
 * A thread is known (it has a cp_thread_t and a heap) from the first of:
 *   - its creation through cp_thread_create (C code built against the
 *     runtime reaches it through pthread_create, see compactptr.h): the
 *     record exists before the thread runs, so a switch that happens while
 *     it starts translates its start argument;
 *   - the runtime's constructor, for the thread that loads the runtime;
 *   - its first allocation or free, checked frame (cp_frame_push), compact
 *     body entry (cp_compact_enter), safepoint or native region.
 * Known, it registers its copies of the thread-local roots (roots.c).
 * A thread is forgotten when it exits, from a pthread key destructor: its
 * heap is abandoned (heap.c: empty slabs go back to the buddy, the others
 * become orphans that later allocations adopt), the roots it registered in
 * its own stack or thread-local storage are dropped, and its record is
 * freed.  A later destructor that allocates makes it known again, and
 * glibc's next round of key destructors forgets it again; a thread that
 * outlives those rounds is found dead by the next switch (cp__thread_alive)
 * and reaped.
 *
 * fork: the runtime's locks are taken around it (pthread_atfork), in their
 * order, so the child never inherits a lock held by a thread it does not
 * have.  In the child only the forking thread exists: every other record
 * and heap is abandoned there, and the condition variables are made anew
 * (the old ones count waiters that the child does not have).
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <threads.h>
#include <unistd.h>

_Thread_local cp_thread_t *cp__self CP__TLS;

cp_thread_t *cp__threads_list;
uint32_t cp__nthreads;
static uint32_t next_seq = 1;
pthread_mutex_t cp__reg_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t exit_key;

void cp__reg_lock(void) { pthread_mutex_lock(&cp__reg_mutex); }
void cp__reg_unlock(void) { pthread_mutex_unlock(&cp__reg_mutex); }

static int gettid_now(void) { return (int)syscall(SYS_gettid); }

static void list_add(cp_thread_t *t) {
  t->prev = NULL;
  t->next = cp__threads_list;
  if (cp__threads_list)
    cp__threads_list->prev = t;
  cp__threads_list = t;
  t->seq = next_seq++;
  __atomic_store_n(&cp__nthreads, cp__nthreads + 1, __ATOMIC_RELAXED);
}

static void list_del(cp_thread_t *t) {
  if (t->prev)
    t->prev->next = t->next;
  else
    cp__threads_list = t->next;
  if (t->next)
    t->next->prev = t->prev;
  __atomic_store_n(&cp__nthreads, cp__nthreads - 1, __ATOMIC_RELAXED);
}

/* The calling thread's stack block: for threads glibc created, it holds
 * the thread's static thread-local storage too. */
static void stack_range(cp_thread_t *t) {
  pthread_attr_t at;
  void *lo;
  size_t size;
  if (pthread_getattr_np(pthread_self(), &at) == 0) {
    if (pthread_attr_getstack(&at, &lo, &size) == 0) {
      t->stack_lo = lo;
      t->stack_hi = (char *)lo + size;
    }
    pthread_attr_destroy(&at);
  }
}

/* Binds record t to the calling thread. */
static void bind_self(cp_thread_t *t) {
  t->tid = gettid_now();
  t->frames = &cp__frame_top;
  t->inside = &cp__inside;
  /* Running: attached by a runtime call (code written by hand calls the
   * runtime too) or by rewritten code, which is inside.  Under the
   * registry lock, so a switch stopping the world sees it running. */
  __atomic_store_n(&cp__inside, 1, __ATOMIC_RELEASE);
  /* Known threads' chains end at the bottom frame, so that cp_frame_push
   * tells an unknown thread by its top alone (NULL). */
  if (!cp__frame_top)
    cp__frame_top = &cp__frame_bottom;
  cp__self = t;
  cp__heap = t->heap;
  stack_range(t);
  /* A non-NULL value makes glibc call the exit hook. */
  pthread_setspecific(exit_key, t);
  cp__tls_roots_attach();
}

/* A thread's record and heap, or NULL where memory or address space runs
 * out (ENOMEM from calloc, or the heap's mapping refused). */
static cp_thread_t *record_try_new(void) {
  cp_thread_t *t = calloc(1, sizeof *t);
  if (t && !(t->heap = cp__heap_try_new())) {
    free(t);
    t = NULL;
  }
  if (t)
    t->heap->thread = t;
  return t;
}

static cp_thread_t *record_new(void) {
  cp_thread_t *t = record_try_new();
  if (!t)
    cp__fatal_no_memory("out of memory for a thread record and heap");
  return t;
}

cp_thread_t *cp__thread_attach(void) {
  if (cp__self)
    return cp__self;
  cp__init();
  cp_thread_t *t = record_new();
  /* Known as running: a switch that is stopping the world waits for it to
   * reach a safepoint; one that is copying holds the registry lock, so
   * this waits until it is over. */
  cp__reg_lock();
  __atomic_store_n(&t->state, CP_TS_RUNNING, __ATOMIC_RELAXED);
  list_add(t);
  bind_self(t);
  cp__stranger_gone();
  cp__reg_unlock();
  return t;
}

cp_heap_t *cp__heap_slow(void) {
  cp_thread_t *t = cp__self;
  if (t && cp__native_nest) {
    /* Code the blocking call runs on this thread touches the heap: the
     * init routine of pthread_once, the cleanup handler of a thread
     * cancelled in pthread_cond_wait, a callback.  The region ends here
     * (after a switch that holds the thread is over): the thread runs and
     * reaches safepoints as any other, and the code around the call kept
     * its compact pointers in roots (the region's contract);
     * cp_native_leave then finds the region gone.  A signal handler inside
     * a region already runs (cp__signal_enter) and keeps it. */
    if (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != CP_TS_RUNNING)
      cp__native_end(t);
    return t->heap;
  }
  return cp__thread_attach()->heap;
}

static void specifics_settle(cp_thread_t *t);
static void specifics_free(cp_thread_t *t);

static void forget(cp_thread_t *t) {
  specifics_free(t);
  cp__heap_abandon(t->heap);
  if (t->stack_lo) {
    cp__lock();
    cp__roots_forget_range(t->stack_lo, t->stack_hi);
    cp__unlock();
  }
  list_del(t);
  free(t);
}

/* The exit hook (pthread key destructor).  A switch in progress is waited
 * out first: the heap changes owner layout there.
 * The hook's key is made at load time, before the program's, and glibc
 * runs destructors in key order: the program's (a tss or pthread_key
 * destructor that walks or frees its thread's compact list, its
 * _Thread_local roots) ran after the thread was forgotten, unstopped by a
 * switch and with its roots dropped (a wrong total, exit 70).  So the hook
 * sets its key again the first time, which makes glibc run another round
 * of destructors after the program's, and forgets the thread then. */
/* The exit key's value for a thread the runtime has never met that came
 * inside rewritten code (cp__stranger_hook). */
static char stranger_mark;

void cp__stranger_hook(void) {
  /* The key's first block is in the thread's descriptor: no allocation,
   * so a handler may set it. */
  if (!pthread_getspecific(exit_key))
    pthread_setspecific(exit_key, &stranger_mark);
}

static void on_thread_exit(void *arg) {
  if (arg == &stranger_mark) {
    /* It exited inside (pthread_exit or a cancellation in an entry), or
     * outside: its slot goes back, while no switch uses it.  No handler
     * meanwhile: one that entered rewritten code would wait for a switch
     * that waits for this lock. */
    if (!cp__self) {
      sigset_t all, old;
      sigfillset(&all);
      pthread_sigmask(SIG_BLOCK, &all, &old);
      cp__reg_lock();
      cp__stranger_gone();
      /* Outside, as every thread the runtime does not know (a switch that
       * is over may have left it held): a later entry, from another key's
       * destructor, takes a slot anew. */
      cp__inside = 0;
      cp__reg_unlock();
      pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    return;
  }
  cp_thread_t *t = arg;
  if (t != cp__self)
    return;
  if (t->exit_rounds++ == 0) {
    /* Every frame of the thread's function is gone, but pthread_exit and
     * cancellation unwind C code without running the cleanups that pop
     * its shadow frames: the chain still names stack the unwinder and the
     * destructors have written over since (a SIGSEGV in the switch's walk
     * of it).  Out of a region the cancellation left it in first (waiting
     * out a switch that may be walking the chain), then the chain starts
     * again at its bottom, for the destructors' own frames. */
    if (cp__native_nest)
      cp__native_end(t);
    /* Likewise out of the hold of a switch that found the thread outside
     * rewritten code (a pool's worker returning from its loop). */
    cp__come_inside();
    specifics_settle(t);
    cp__frame_top = &cp__frame_bottom;
    cp__compact_depth = 0;
    if (pthread_setspecific(exit_key, t) == 0)
      return;
  }
  cp__reg_lock();
  if (__atomic_load_n(&cp__stopping, __ATOMIC_ACQUIRE))
    cp__park(t);
  forget(t);
  cp__self = NULL;
  cp__frame_top = NULL; /* a later frame (another key's destructor) re-attaches */
  cp__native_nest = 0;  /* a region left by the cancellation of the thread */
  cp__inside = 0;       /* a later entry attaches it anew */
  cp__heap = &cp__heap_empty;
  cp__reg_unlock();
}

bool cp__thread_alive(const cp_thread_t *t) {
  if (t->tid == 0)
    return true; /* not started yet */
  return syscall(SYS_tgkill, getpid(), t->tid, 0) == 0 || errno != ESRCH;
}

void cp__thread_reap(cp_thread_t *t) {
  /* Its thread-local storage is gone with it: t->frames is not followed. */
  forget(t);
}

/* ---- results ------------------------------------------------------------- */

/* A thread's result (its start routine's return value, pthread_exit's
 * argument) waits in libc's memory until pthread_join, where the switch
 * cannot translate it.  One that the plugin sees is a compact pointer
 * (cp_thread_result, around the return value or the argument) is kept
 * here as well, a root until the join takes it (cp_thread_join: the
 * program's pthread_join); the join then hands over this copy, translated
 * if a switch ran meanwhile.  Only those: a result that is an integer in a
 * pointer (`return (void *)count;`) may equal an address in the arena, and
 * translating it would change it.  A result nobody joins through
 * cp_thread_join (a detached thread's) stays: one entry per such thread. */
typedef struct cp_result {
  struct cp_result *next;
  pthread_t thread;
  void *handed; /* what the thread handed libc: what its join gets there */
  void *value;  /* the same, kept translated */
} cp_result_t;
static cp_result_t *results; /* registry lock */
static uint32_t nresults;    /* atomic: a join looks only if some are kept */

/* Unlinks and returns the result kept for thread th, which handed libc
 * `handed`, or NULL.  By both: once a thread is joined, glibc may give its
 * id to a new thread, which can end and keep its own result before the
 * joiner of the first takes the first's.  Registry lock held. */
static cp_result_t *result_take(pthread_t th, void *handed) {
  for (cp_result_t **at = &results; *at; at = &(*at)->next)
    if (pthread_equal((*at)->thread, th) && (*at)->handed == handed) {
      cp_result_t *r = *at;
      *at = r->next;
      __atomic_store_n(&nresults, nresults - 1, __ATOMIC_RELAXED);
      return r;
    }
  return NULL;
}

/* The calling thread ends with result v, a compact pointer: kept if it is
 * a compact address.  Returns v, translated if a switch ran while this
 * thread parked here.  No switch runs between the evaluation of v and the
 * registry lock below: a known thread is running there, and the switch
 * waits for it to park. */
static void *keep_result(void *v) {
  if (!v)
    return v;
  cp_result_t *r = malloc(sizeof *r);
  if (!r)
    cp__fatal_no_memory("out of memory keeping a thread's result");
  cp__reg_lock();
  if (!cp__wide && cp__arena_contains(&cp__compact_arena, v)) {
    cp_result_t *mine = r;
    *mine = (cp_result_t){results, pthread_self(), v, v};
    results = mine;
    __atomic_store_n(&nresults, nresults + 1, __ATOMIC_RELAXED);
    r = NULL;
    cp_thread_t *t = cp__self;
    if (t && __atomic_load_n(&cp__stopping, __ATOMIC_ACQUIRE))
      cp__park(t);
    /* Nobody takes it before this thread ends: its join waits for that. */
    v = mine->handed = mine->value;
  }
  cp__reg_unlock();
  free(r);
  return v;
}

void cp__thread_results_each(cp_root_visit_fn fn, void *ctx) {
  for (cp_result_t *r = results; r; r = r->next)
    fn(&r->value, NULL, NULL, ctx);
}

/* After a join of thread that returned e and gave v: the result kept for
 * it instead, if any. */
static int joined(pthread_t thread, int e, void *v, void **result) {
  if (e == 0 && __atomic_load_n(&nresults, __ATOMIC_RELAXED)) {
    /* In the native region the plugin made around the call, a switch may
     * run at any time, and the value would be stale before the program
     * reads it: the region ends here instead (cp_native_leave finds it
     * gone), as it does where the blocked code allocates. */
    cp_thread_t *t = cp__self;
    if (t && cp__native_nest)
      cp__native_end(t);
    cp__reg_lock();
    cp_result_t *r = result_take(thread, v);
    cp__reg_unlock();
    if (r)
      v = r->value;
    free(r);
  }
  if (e == 0 && result)
    *result = v;
  return e;
}

int cp_thread_join(pthread_t thread, void **result) {
  void *v = NULL;
  return joined(thread, pthread_join(thread, &v), v, result);
}

int cp_thread_tryjoin_np(pthread_t thread, void **result) {
  void *v = NULL;
  return joined(thread, pthread_tryjoin_np(thread, &v), v, result);
}

int cp_thread_timedjoin_np(pthread_t thread, void **result,
                           const struct timespec *abstime) {
  void *v = NULL;
  return joined(thread, pthread_timedjoin_np(thread, &v, abstime), v, result);
}

void *cp_thread_result(void *result) { return keep_result(result); }

/* ---- key values ------------------------------------------------------------
 * libc keeps a thread's value of a pthread key where the switch cannot see
 * it.  One the plugin sees is a compact pointer (cp_thread_specific, around
 * pthread_setspecific's argument) is kept here too, a root while the
 * thread lives, beside the value handed to libc; the thread's
 * pthread_getspecific (cp_thread_getspecific) gives the translated one
 * when libc still holds what it was handed, and hands it to libc; so does
 * the thread's exit hook, before the program's key destructors run. */
typedef struct cp_specific {
  struct cp_specific *next;
  pthread_key_t key;
  void *handed, *value;
} cp_specific_t;

void cp__thread_specifics_each(cp_thread_t *t, cp_root_visit_fn fn, void *ctx) {
  for (cp_specific_t *e = t->specifics; e; e = e->next)
    fn(&e->value, NULL, NULL, ctx);
}

void *cp_thread_specific(pthread_key_t key, void *value) {
  if (!value)
    return value;
  cp_thread_t *t = cp__thread();
  cp__reg_lock();
  if (!cp__wide && cp__arena_contains(&cp__compact_arena, value)) {
    cp_specific_t *e = t->specifics;
    while (e && e->key != key)
      e = e->next;
    if (!e && (e = calloc(1, sizeof *e))) {
      e->key = key;
      e->next = t->specifics;
      t->specifics = e;
    }
    if (!e)
      cp__fatal_no_memory("out of memory keeping a thread's key value");
    e->handed = e->value = value;
  }
  cp__reg_unlock();
  return value;
}

/* The calling thread's kept value of key whose libc value is v, brought up
 * to date in libc: v itself if none is kept.  Only this thread changes its
 * list, and the switch only while the thread is stopped: no lock, but in a
 * native region (code a blocking call runs back), where the switch may be
 * translating the list meanwhile. */
static void *specific_current(cp_thread_t *t, pthread_key_t key, void *v) {
  if (!t || !t->specifics || !v)
    return v;
  bool locked = cp__native_nest != 0;
  if (locked)
    cp__reg_lock();
  for (cp_specific_t *e = t->specifics; e; e = e->next)
    if (e->key == key && e->handed == v) {
      if (e->value != v) {
        pthread_setspecific(key, e->value);
        e->handed = v = e->value;
      }
      break;
    }
  if (locked)
    cp__reg_unlock();
  return v;
}

void *cp_thread_getspecific(pthread_key_t key) {
  return specific_current(cp__self, key, pthread_getspecific(key));
}

/* Brings every kept key value of t up to date in libc (its exit hook, before
 * the program's destructors read them); forget() frees them. */
static void specifics_settle(cp_thread_t *t) {
  for (cp_specific_t *e = t->specifics; e; e = e->next)
    specific_current(t, e->key, pthread_getspecific(e->key));
}

static void specifics_free(cp_thread_t *t) {
  while (t->specifics) {
    cp_specific_t *e = t->specifics;
    t->specifics = e->next;
    free(e);
  }
}

/* ---- creation ------------------------------------------------------------ */

static void *trampoline(void *arg) {
  cp_thread_t *t = arg;
  cp__reg_lock();
  bind_self(t);
  /* Not started yet is a safe state; running is not: a stop in progress
   * is waited out here, before any of the program's code runs. */
  if (__atomic_load_n(&cp__stopping, __ATOMIC_ACQUIRE))
    cp__park(t);
  __atomic_store_n(&t->state, CP_TS_RUNNING, __ATOMIC_RELEASE);
  if (t->start_outside) /* under the registry lock, as bind_self's 1 */
    __atomic_store_n(&cp__inside, 0, __ATOMIC_RELEASE);
  void *(*fn)(void *) = t->start_fn;
  int (*c11)(void *) = t->start_c11;
  void *a = t->start_arg;
  bool outside = t->start_outside;
  sigset_t mask = t->start_mask;
  t->start_arg = NULL;
  cp__reg_unlock();
  pthread_sigmask(SIG_SETMASK, &mask, NULL);
  /* A C11 start routine returns int, which thrd_join reads back from the
   * pointer pthread_join gives (as glibc's own thrd_create arranges). */
  if (!fn)
    return (void *)(intptr_t)c11(a);
  void *r;
  cp__start_run(fn, a, outside, &r);
  return r;
}

static int thread_create(pthread_t *thread, const pthread_attr_t *attr,
                         void *(*start)(void *), int (*start_c11)(void *),
                         void *arg) {
  cp__init();
  /* Out of memory here is the program's to handle, as it is for the
   * thread's stack: pthread_create's "insufficient resources". */
  cp_thread_t *t = record_try_new();
  if (!t)
    return EAGAIN;
  t->start_fn = start;
  t->start_c11 = start_c11;
  t->start_arg = arg;
  t->start_outside = __atomic_load_n(&cp__inside, __ATOMIC_RELAXED) == 0;
  cp__reg_lock();
  __atomic_store_n(&t->state, CP_TS_STARTING, __ATOMIC_RELAXED);
  list_add(t);
  cp__reg_unlock();
  /* The thread starts with every signal blocked (it inherits this mask)
   * until the trampoline has bound it: see start_mask.  (A copy of the mask
   * here: the thread may run, exit and free t before pthread_create returns.)
   */
  sigset_t all, mask;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &mask);
  t->start_mask = mask;
  int r = pthread_create(thread, attr, trampoline, t);
  pthread_sigmask(SIG_SETMASK, &mask, NULL);
  if (r != 0) {
    cp__reg_lock();
    cp__heap_abandon(t->heap);
    list_del(t);
    free(t);
    cp__reg_unlock();
  }
  return r;
}

int cp_thread_create(pthread_t *thread, const pthread_attr_t *attr,
                     void *(*start)(void *), void *arg) {
  return thread_create(thread, attr, start, NULL, arg);
}

int cp_thrd_create(unsigned long *thread, int (*start)(void *), void *arg) {
  _Static_assert(sizeof(thrd_t) == sizeof(unsigned long),
                 "thrd_t is pthread_t");
  int r = thread_create((pthread_t *)thread, NULL, NULL, start, arg);
  /* As glibc's thrd_create maps pthread_create's errors. */
  return r == 0 ? thrd_success : r == ENOMEM ? thrd_nomem : thrd_error;
}

int cp_thread_register(void) { return 0; }
int cp_thread_unregister(void) { return 0; }

/* ---- fork ---------------------------------------------------------------- */

static void before_fork(void) {
  cp__reg_lock();
  cp__lock();
}

static void after_fork_parent(void) {
  cp__unlock();
  cp__reg_unlock();
}

static void after_fork_child(void) {
  cp_thread_t *self = cp__self;
  for (cp_thread_t *t = cp__threads_list, *next; t; t = next) {
    next = t->next;
    if (t != self) {
      list_del(t);
      specifics_free(t);
      free(t); /* its heap goes with the others below */
    }
  }
  if (self)
    self->tid = gettid_now();
  cp__heap_after_fork(self ? self->heap : NULL);
  cp__safepoint_after_fork();
  cp__unlock();
  cp__reg_unlock();
}

void cp__threads_init(void);
void cp__threads_init(void) {
  if (pthread_key_create(&exit_key, on_thread_exit) != 0)
    cp__fatal("cannot create the thread-exit key");
  if (pthread_atfork(before_fork, after_fork_parent, after_fork_child) != 0)
    cp__fatal("cannot register the fork handlers");
}
