/*
 * blocking.c - native regions around the waits of code the plugin did not
 * rewrite.
 *
 * The plugin makes the blocking calls it sees native regions (safepoint.c),
 * so the switch runs while a thread waits there.  A thread pool in a file
 * of its own, which declares no compact type, waits where the plugin does
 * not look: its workers idle in pthread_cond_wait, its owner joins them,
 * and a switch that another thread makes pending waited for them until
 * COMPACTPTR_SAFEPOINT_TIMEOUT stopped the program.  So the runtime defines
 * the common waits itself (the executable's or an earlier library's
 * definition of a symbol wins over libc's): pthread_cond_wait and
 * pthread_cond_timedwait, pthread_mutex_lock, the rwlock's rdlock and
 * wrlock, pthread_spin_lock (whose holder may be parked at the switch),
 * pthread_barrier_wait, sem_wait, pthread_join and
 * pthread_timedjoin_np; and makes such a wait a native region where that
 * is safe:
 *
 *  - the thread is known, in compact mode, in a switchable program, and not
 *    in a region already;
 *  - the call comes from the image of a plugin-built module: a library of
 *    others (sqlite, a resolver) may wait inside a call that compact code
 *    makes without saving its compact pointers (a function of a system
 *    header is not code the plugin must assume reaches a safepoint);
 *  - no compact body is active: then every frame of rewritten code on the
 *    thread's stack is at a call of code the plugin cannot see, which it
 *    treats as a safepoint (its compact pointers saved in frame slots,
 *    docs/plugin.md section 4a); under a compact body the region is
 *    entered unsafe (cp_native_enter), and the switch refuses with that
 *    reason instead of waiting for a thread it cannot stop;
 *  - what it waits on is not in the compact arena (a mutex inside a node,
 *    which the switch would move under its waiters).
 *
 * Rewritten files call the real functions (compactptr.h gives them the
 * assembler names cp__direct_* in a unit the plugin rewrites, which
 * passes/Plugin.cpp marks CP__REWRITTEN_UNIT; a plain file that includes
 * the header keeps these): their waits are regions where the plugin
 * made them, after saving the function's compact pointers, and nowhere
 * else (a statement expression keeps them in registers); so does the
 * runtime, whose own locks and waits are never regions.
 *
 * Only waits that are not async-signal-safe: a handler may call read,
 * write or nanosleep while the code it interrupted holds compact pointers
 * in registers, and a region there would let the switch move the objects
 * under them.  Those still need CP_NATIVE in a file of their own, and so
 * do the timed and clock forms of the locks and sem_timedwait: a fully
 * static executable could not reach libc's (below).
 *
 * The real function is the sanitizer's interceptor when one is linked in
 * (ThreadSanitizer's and AddressSanitizer's are weak, with a
 * __interceptor_ name beside), libc's otherwise (dlsym(RTLD_NEXT)).
 * A cancellation in the wait (pthread_cancel) leaves the region on its way
 * out, through the cleanup handler pushed around it.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <time.h>

/* The definition a wait of this file stands in front of: the sanitizer's
 * interceptor, libc's (dlsym), or, in a fully static executable (no
 * dynamic loader to ask), libc's own name for it if that is linked in
 * (static_alias, a weak reference); NULL if none is.  Looked up on first
 * use, atomically: several threads may race to it. */
static void *next_symbol(void *const *slot, void *interceptor, const char *name,
                         void *static_alias) {
  void *f = __atomic_load_n((void **)slot, __ATOMIC_ACQUIRE);
  if (f)
    return f;
  f = interceptor ? interceptor : dlsym(RTLD_NEXT, name);
  if (!f)
    f = static_alias;
  if (f)
    __atomic_store_n((void **)slot, f, __ATOMIC_RELEASE);
  return f;
}

/* next_NAME(): that definition of NAME, or NULL. */
#define CP_NEXT(name, params, static_alias)                                    \
  extern int __interceptor_##name params __attribute__((weak));                \
  static int(*next_##name(void)) params {                                      \
    static int(*f) params;                                                     \
    return (int(*) params)next_symbol((void *const *)&f,                       \
                                      (void *)__interceptor_##name, #name,     \
                                      (void *)(static_alias));                 \
  }

/* glibc's names in libc.a.  A fully static link takes in a member of it
 * only for a symbol still undefined, and the runtime's definitions leave
 * the public names defined: each of these members is linked in for one of
 * its other symbols the runtime calls (anchors, below), or the wait falls
 * back to a form that is (a lock with a deadline that never comes). */
extern int __pthread_cond_wait(pthread_cond_t *, pthread_mutex_t *)
    __attribute__((weak));
extern int __pthread_cond_timedwait(pthread_cond_t *, pthread_mutex_t *,
                                    const struct timespec *)
    __attribute__((weak));
extern int __pthread_mutex_lock(pthread_mutex_t *) __attribute__((weak));
extern int __pthread_rwlock_rdlock(pthread_rwlock_t *) __attribute__((weak));
extern int __pthread_rwlock_wrlock(pthread_rwlock_t *) __attribute__((weak));
extern int __new_sem_wait(sem_t *) __attribute__((weak));
extern int __pthread_barrier_wait(pthread_barrier_t *) __attribute__((weak));
extern int __pthread_spin_lock(pthread_spinlock_t *) __attribute__((weak));
/* pthread_cond_clockwait shares its member with the two waits above,
 * sem_trywait with sem_wait's; the joins are pthread_clockjoin_np's. */
__attribute__((used)) static void *const anchors[] = {
    (void *)pthread_cond_clockwait, (void *)sem_trywait,
    (void *)pthread_clockjoin_np};

static _Noreturn void no_next(const char *name) {
  cp__fatal("cannot find the C library's %s, which the runtime's own %s "
            "calls: a fully static executable links it in only when asked "
            "(link with -Wl,-u,__%s, or dynamically)",
            name, name, name);
}

enum { NO_REGION, REGION, ELSEWHERE };

/* Is a wait called from `ra` on a and b to be a native region?
 * ELSEWHERE: it would be, but the call comes from another shared object. */
static int region_wanted(const void *ra, const void *a, const void *b) {
  if (!cp__self || cp__native_nest || cp__wide ||
      cp__build != CP_BUILD_SWITCHABLE)
    return NO_REGION;
  if (cp__arena_contains(&cp__compact_arena, a) ||
      cp__arena_contains(&cp__compact_arena, b))
    return NO_REGION;
  return cp__in_module_image(ra) ? REGION : ELSEWHERE;
}

static void leave_on_cancel(void *unused) {
  (void)unused;
  cp_native_leave();
}

static void forget_wait(void *unused) {
  (void)unused;
  __atomic_store_n(&cp__self->wait_from, NULL, __ATOMIC_RELAXED);
}

/* Returns CALL, in a native region if region_wanted(RA, A, B).  The
 * region's count is the thread's own; cp_native_leave finds it gone if
 * the wait ran code back that ended it (an allocation in a callback).  A
 * wait of another shared object is noted in the thread's record for the
 * switch's refusal to name (safepoint.c). */
#define CP_IN_REGION(ra, a, b, call)                                           \
  do {                                                                         \
    int w_ = region_wanted(ra, a, b), r_;                                      \
    if (w_ == NO_REGION)                                                       \
      return call;                                                             \
    if (w_ == ELSEWHERE) {                                                     \
      __atomic_store_n(&cp__self->wait_from, ra, __ATOMIC_RELAXED);            \
      pthread_cleanup_push(forget_wait, NULL);                                 \
      r_ = call;                                                               \
      pthread_cleanup_pop(1);                                                  \
      return r_;                                                               \
    }                                                                          \
    cp_native_enter();                                                         \
    pthread_cleanup_push(leave_on_cancel, NULL);                               \
    r_ = call;                                                                 \
    pthread_cleanup_pop(0);                                                    \
    cp_native_leave();                                                         \
    return r_;                                                                 \
  } while (0)

typedef const struct timespec *cp_deadline_t;

CP_NEXT(pthread_cond_wait, (pthread_cond_t * c, pthread_mutex_t *m),
        __pthread_cond_wait)
CP_NEXT(pthread_cond_timedwait,
        (pthread_cond_t * c, pthread_mutex_t *m, cp_deadline_t t),
        __pthread_cond_timedwait)
CP_NEXT(pthread_mutex_lock, (pthread_mutex_t * m), __pthread_mutex_lock)
CP_NEXT(pthread_rwlock_rdlock, (pthread_rwlock_t * l), __pthread_rwlock_rdlock)
CP_NEXT(pthread_rwlock_wrlock, (pthread_rwlock_t * l), __pthread_rwlock_wrlock)
CP_NEXT(sem_wait, (sem_t * s), __new_sem_wait)
CP_NEXT(pthread_barrier_wait, (pthread_barrier_t * b), __pthread_barrier_wait)
CP_NEXT(pthread_spin_lock, (pthread_spinlock_t * l), __pthread_spin_lock)
CP_NEXT(pthread_join, (pthread_t t, void **r), NULL)
CP_NEXT(pthread_timedjoin_np, (pthread_t t, void **r, cp_deadline_t d), NULL)

/* A deadline that never comes: the lock's timed form waits as the lock. */
static const struct timespec never = {(time_t)1 << 62, 0};

/* ---- the real waits ------------------------------------------------------ */

int cp__direct_pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m) {
  int (*f)(pthread_cond_t *, pthread_mutex_t *) = next_pthread_cond_wait();
  if (!f)
    no_next("pthread_cond_wait");
  return f(c, m);
}

int cp__direct_pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                      cp_deadline_t t) {
  int (*f)(pthread_cond_t *, pthread_mutex_t *, cp_deadline_t) =
      next_pthread_cond_timedwait();
  if (!f)
    no_next("pthread_cond_timedwait");
  return f(c, m, t);
}

int cp__direct_pthread_mutex_lock(pthread_mutex_t *m) {
  int (*f)(pthread_mutex_t *) = next_pthread_mutex_lock();
  if (f)
    return f(m);
  int r;
  while ((r = pthread_mutex_timedlock(m, &never)) == ETIMEDOUT)
    ;
  return r;
}

int cp__direct_pthread_rwlock_rdlock(pthread_rwlock_t *l) {
  int (*f)(pthread_rwlock_t *) = next_pthread_rwlock_rdlock();
  if (f)
    return f(l);
  int r;
  while ((r = pthread_rwlock_timedrdlock(l, &never)) == ETIMEDOUT)
    ;
  return r;
}

int cp__direct_pthread_rwlock_wrlock(pthread_rwlock_t *l) {
  int (*f)(pthread_rwlock_t *) = next_pthread_rwlock_wrlock();
  if (f)
    return f(l);
  int r;
  while ((r = pthread_rwlock_timedwrlock(l, &never)) == ETIMEDOUT)
    ;
  return r;
}

int cp__direct_sem_wait(sem_t *s) {
  int (*f)(sem_t *) = next_sem_wait();
  if (!f)
    no_next("sem_wait");
  return f(s);
}

int cp__direct_pthread_barrier_wait(pthread_barrier_t *b) {
  int (*f)(pthread_barrier_t *) = next_pthread_barrier_wait();
  if (!f)
    no_next("pthread_barrier_wait");
  return f(b);
}

int cp__direct_pthread_spin_lock(pthread_spinlock_t *l) {
  int (*f)(pthread_spinlock_t *) = next_pthread_spin_lock();
  if (f)
    return f(l);
  while (pthread_spin_trylock(l) == EBUSY)
    __builtin_ia32_pause();
  return 0;
}

int cp__direct_pthread_join(pthread_t t, void **r) {
  int (*f)(pthread_t, void **) = next_pthread_join();
  return f ? f(t, r) : pthread_clockjoin_np(t, r, CLOCK_REALTIME, NULL);
}

int cp__direct_pthread_timedjoin_np(pthread_t t, void **r, cp_deadline_t d) {
  int (*f)(pthread_t, void **, cp_deadline_t) = next_pthread_timedjoin_np();
  return f ? f(t, r, d) : pthread_clockjoin_np(t, r, CLOCK_REALTIME, d);
}

int cp__direct_pthread_tryjoin_np(pthread_t t, void **r) {
  return pthread_tryjoin_np(t, r); /* never blocks: not defined here */
}

/* ---- the program's waits ------------------------------------------------- */

#define CP_RA __builtin_return_address(0)

CP_API int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m) {
  CP_IN_REGION(CP_RA, c, m, cp__direct_pthread_cond_wait(c, m));
}

CP_API int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                  cp_deadline_t t) {
  CP_IN_REGION(CP_RA, c, m, cp__direct_pthread_cond_timedwait(c, m, t));
}

CP_API int pthread_barrier_wait(pthread_barrier_t *b) {
  CP_IN_REGION(CP_RA, b, NULL, cp__direct_pthread_barrier_wait(b));
}

/* Read-write locks, spin locks and semaphores are tried first, whoever
 * calls: a free one is taken at the cost of the try, and only a held one
 * asks whether its wait is a region.  The try's result is the lock's, EBUSY
 * aside (a read lock under this thread's write lock is EBUSY to the try and
 * EDEADLK to the lock). */
#define CP_TRY_FIRST(l, try)                                                   \
  do {                                                                         \
    int r_ = try(l);                                                           \
    if (r_ != EBUSY)                                                           \
      return r_;                                                               \
  } while (0)

/* A mutex whose lock word is 0 is free (of every kind glibc has: the
 * robust and priority-inheriting ones keep their owner's id there, a dead
 * owner's mark too): it is locked without asking, at the cost of libc's
 * lock (its try costs more).  One taken meanwhile blocks outside a region,
 * briefly, as every lock did before.  The lock is called once either way,
 * so its result is libc's (EOWNERDEAD, EDEADLK). */
CP_API int pthread_mutex_lock(pthread_mutex_t *m) {
  if (__atomic_load_n(&m->__data.__lock, __ATOMIC_RELAXED) == 0)
    return cp__direct_pthread_mutex_lock(m);
  CP_IN_REGION(CP_RA, m, NULL, cp__direct_pthread_mutex_lock(m));
}

CP_API int pthread_spin_lock(pthread_spinlock_t *l) {
  CP_TRY_FIRST(l, pthread_spin_trylock);
  CP_IN_REGION(CP_RA, (const void *)(uintptr_t)l, NULL,
               cp__direct_pthread_spin_lock(l));
}

CP_API int pthread_rwlock_rdlock(pthread_rwlock_t *l) {
  CP_TRY_FIRST(l, pthread_rwlock_tryrdlock);
  CP_IN_REGION(CP_RA, l, NULL, cp__direct_pthread_rwlock_rdlock(l));
}

CP_API int pthread_rwlock_wrlock(pthread_rwlock_t *l) {
  CP_TRY_FIRST(l, pthread_rwlock_trywrlock);
  CP_IN_REGION(CP_RA, l, NULL, cp__direct_pthread_rwlock_wrlock(l));
}

/* sem_trywait reports a taken semaphore in errno (EAGAIN), which a wait
 * that then succeeds must not leave behind. */
static int sem_try(sem_t *s) {
  int e = errno;
  if (sem_trywait(s) == 0)
    return 0;
  errno = e;
  return EBUSY;
}

CP_API int sem_wait(sem_t *s) {
  CP_TRY_FIRST(s, sem_try);
  CP_IN_REGION(CP_RA, s, NULL, cp__direct_sem_wait(s));
}

/* Joins hand the thread's kept result over as cp_thread_join does
 * (thread.c). */
CP_API int pthread_join(pthread_t t, void **r) {
  CP_IN_REGION(CP_RA, NULL, NULL, cp_thread_join(t, r));
}

CP_API int pthread_timedjoin_np(pthread_t t, void **r, cp_deadline_t d) {
  CP_IN_REGION(CP_RA, NULL, NULL, cp_thread_timedjoin_np(t, r, d));
}
