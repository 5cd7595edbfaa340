/*
 * safepoint.c - stopping the world for the switch, and native regions.
 *
 * The switch moves every object, so it runs only when no thread can be
 * using a compact address it would not translate: every known thread
 * (thread.c) must be in one of these safe states at once:
 *   PARKED    waiting at a safepoint: a poll (cp_safepoint), an explicit
 *             cp_switch_to_wide(), or any other runtime entry that calls
 *             cp__safepoint (the handshake takes no more from its caller
 *             than "no compact body active, every compact pointer it uses
 *             afterwards is in a root", so an allocation entry can be one);
 *   NATIVE    inside a native region (cp_native_enter/leave, CP_NATIVE):
 *             a blocking call or other code that touches no compact object,
 *             entered outside compact bodies.  The leader turns it into HELD
 *             with a compare-and-swap; a thread that leaves meanwhile finds
 *             HELD and waits there until the switch is over, so it never
 *             touches the heap while it moves (HotSpot's "in native").  Code
 *             the call runs back on the thread (pthread_once's init
 *             routine, a cancelled thread's cleanup handler) ends the region
 *             at its first allocation, free or safepoint, the same way;
 *   STARTING  created by cp_thread_create and not yet running the
 *             program's code; its start argument is a root.
 * Not safe: RUNNING (anywhere else, including in a compact body, whose
 * compact pointers live in registers), and NATIVE_UNSAFE (a native region
 * entered under a compact body).
 *
 * The handshake.  The switch is pending (a flag every poll reads).  The
 * first thread to reach a safepoint becomes the leader: it sets
 * cp__stopping, then waits (a condition variable, woken by each arrival and
 * by each entry to a native region) until every other thread is safe.  A
 * thread that arrives while it waits parks.  With the world stopped the
 * leader runs the switch (switch.c), translating every thread's shadow
 * stack, gives held threads back their native state and wakes the parked
 * ones.  No signal is sent to any thread: a blocking call in another thread
 * is never interrupted (no EINTR), and errno is never touched (the native
 * transitions save and restore it).  The leader and the parked threads
 * hold asynchronous signals until the resume (hold_signals), so no handler
 * of theirs sees the heap half moved.
 *
 * A thread that is never safe (a compact body that runs for long, a loop
 * without a poll, a blocking call outside a native region, a native region
 * entered under a compact body) is waited for COMPACTPTR_SAFEPOINT_TIMEOUT
 * milliseconds; then the program stops with a message naming the thread
 * (number, kernel id, name), what it is doing as far as the runtime and
 * the kernel can tell, and the way out.  A thread that died without its
 * exit hook is reaped while the leader waits.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <sys/single_threaded.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int cp__stopping;
uint64_t cp__safepoint_timeout_ms = 10000;
uint64_t cp__safepoints_deferred;

/* Registry lock: */
static cp_thread_t *leader;
static uint64_t epoch; /* bumped when a stop ends */
static pthread_cond_t arrive_cond = PTHREAD_COND_INITIALIZER;
static pthread_cond_t resume_cond = PTHREAD_COND_INITIALIZER;

static int state_of(const cp_thread_t *t) {
  return __atomic_load_n(&t->state, __ATOMIC_ACQUIRE);
}

/* A signal handler that reads compact objects must not run while the
 * switch moves them: on the leader, it would see a heap half copied; on a
 * parked thread, or one waiting at the exit of its native region, the
 * same.  So these threads hold the asynchronous signals while they wait
 * (one that arrives meanwhile is delivered when the mask is restored: a
 * timer tick comes late, none is lost).  Synchronous signals cannot be held (a
 * fault while SIGSEGV is blocked kills the process), and the arena's own
 * fault handler needs SIGSEGV.  A thread blocked inside its native region
 * is not stopped: a handler that runs there while the switch moves the
 * heap sees it half moved (docs/switch.md says so). */
static void hold_signals(sigset_t *old) {
  sigset_t all;
  sigfillset(&all);
  sigdelset(&all, SIGSEGV);
  sigdelset(&all, SIGBUS);
  sigdelset(&all, SIGFPE);
  sigdelset(&all, SIGILL);
  sigdelset(&all, SIGTRAP);
  sigdelset(&all, SIGABRT);
  pthread_sigmask(SIG_BLOCK, &all, old);
}

void cp__park(cp_thread_t *self) {
  sigset_t old;
  hold_signals(&old);
  int cancel; /* as in cp__safepoint: a new thread parks in its trampoline */
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
  int was = state_of(self);
  __atomic_store_n(&self->state, CP_TS_PARKED, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&arrive_cond);
  uint64_t e = epoch;
  while (epoch == e)
    pthread_cond_wait(&resume_cond, &cp__reg_mutex);
  __atomic_store_n(&self->state, was, __ATOMIC_RELEASE);
  pthread_setcancelstate(cancel, NULL);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* ---- the refusal --------------------------------------------------------- */

/* Reads /proc/self/task/TID/NAME into buf (no allocation: the fatal path
 * may follow). */
static void read_task(int tid, const char *name, char *buf, size_t n) {
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%d/%s", tid, name);
  buf[0] = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  ssize_t r = read(fd, buf, n - 1);
  close(fd);
  buf[r > 0 ? r : 0] = 0;
  char *nl = strchr(buf, '\n');
  if (nl)
    *nl = 0;
}

/* The kernel's one-letter state of a task: R running, S sleeping, D
 * waiting on I/O, T stopped...; '?' if unknown. */
static char task_state(int tid) {
  char stat[512];
  read_task(tid, "stat", stat, sizeof stat);
  char *close_paren = strrchr(stat, ')');
  return close_paren && close_paren[1] == ' ' ? close_paren[2] : '?';
}

/* Where a thread started, for the user to tell their threads apart: the
 * start routine's name if the dynamic symbol table has it, else its module
 * and offset (`addr2line -f -e MODULE OFFSET` names a static function). */
static void start_routine_text(const cp_thread_t *t, char *out, size_t n) {
  Dl_info info;
  out[0] = 0;
  void *fn = t->start_fn ? (void *)t->start_fn : (void *)t->start_c11;
  if (!fn || !dladdr(fn, &info))
    return;
  if (info.dli_sname && info.dli_saddr == fn) {
    snprintf(out, n, ", start routine '%s'", info.dli_sname);
  } else if (info.dli_fname) {
    const char *base = strrchr(info.dli_fname, '/');
    snprintf(out, n, ", start routine at %s+%#lx",
             base ? base + 1 : info.dli_fname,
             (unsigned long)((uintptr_t)fn - (uintptr_t)info.dli_fbase));
  }
}

static _Noreturn void refuse(const cp_thread_t *t, const char *why) {
  char comm[64], started[256];
  start_routine_text(t, started, sizeof started);
  read_task(t->tid, "comm", comm, sizeof comm);
  char ks = task_state(t->tid);
  int s = state_of(t);
  char what[1200];
  if (s == CP_TS_NATIVE_UNSAFE)
    snprintf(what, sizeof what,
             "it is in a native region it entered under a compact body "
             "(cp__compact_depth %u), whose compact pointers live in "
             "registers the switch cannot translate; make the blocking call "
             "from a function that reaches a safepoint (it is then compiled "
             "in the checked form, outside compact bodies)",
             __atomic_load_n(&t->native_depth, __ATOMIC_RELAXED));
  else if (ks == 'S' || ks == 'D')
    snprintf(what, sizeof what,
             "it is blocked in the kernel (state %c) outside a native region, "
             "inside rewritten code (a call to a function of another file "
             "counts as stopped only when it is handed no compact memory and "
             "made from a function that reaches a safepoint); "
             "wrap its blocking call in CP_NATIVE(...) (or cp_native_enter() "
             "and cp_native_leave()) so the switch can run while it waits, "
             "unless the call waits on memory inside a compact object (a "
             "mutex in a node, or in a global struct that holds compact "
             "pointers, which the switch moves under its waiters: keep it "
             "outside such structs; the plugin's "
             "-Wcompactptr-blocking-on-object says where) or is handed a "
             "compact object it keeps (a queue of 'void *' in another "
             "file: -Wcompactptr-void-escape says where; keep such objects "
             "in a structure of their own type)",
             ks);
  else
    snprintf(what, sizeof what,
             "it is running (state %c) and reached no safepoint: it is in a "
             "compact body (code that touches compact objects and reaches no "
             "safepoint), in a loop without a cp_safepoint() call, or in code "
             "built without the plugin that does not return%s",
             ks,
             __atomic_load_n(&t->deferred_depth, __ATOMIC_RELAXED)
                 ? "; its last safepoint was deferred under a compact body"
                 : "");
  cp__fatal("cannot switch to wide mode (%s): thread %u (tid %d, '%s'%s) did "
            "not stop at a safepoint within %llu ms "
            "(COMPACTPTR_SAFEPOINT_TIMEOUT): %s",
            why, t->seq, t->tid, comm, started,
            (unsigned long long)cp__safepoint_timeout_ms, what);
}

/* A thread the runtime has never met (stranger.c) stayed inside rewritten
 * code: no record, so its kernel id, name and state say which. */
static _Noreturn void refuse_stranger(int tid, int inside, const char *why) {
  char comm[64];
  read_task(tid, "comm", comm, sizeof comm);
  char ks = task_state(tid);
  const char *what =
      ks == 'S' || ks == 'D'
          ? "it is blocked in the kernel inside rewritten code: most likely "
            "in a call to another file's function made from a compact body "
            "(a function that touches compact objects and reaches no "
            "safepoint the plugin can see, whose compact pointers live in "
            "registers); declare that callee CP_SAFEPOINT in the prototype "
            "the caller sees, and the caller keeps its compact pointers in "
            "roots and counts as stopped while the callee waits (or the "
            "thread left an entry by a longjmp and waits in code outside)"
          : "it is running inside rewritten code: in a compact body that "
            "does not return, or it left an entry by a longjmp";
  cp__fatal("cannot switch to wide mode (%s): thread tid %d ('%s', state %c), "
            "started by code built without compactptr.h (libc's "
            "pthread_create)%s, did not leave rewritten code within %llu ms "
            "(COMPACTPTR_SAFEPOINT_TIMEOUT): %s",
            why, tid, comm, ks, inside > 1 ? " and others like it" : "",
            (unsigned long long)cp__safepoint_timeout_ms, what);
}

/* ---- the leader ---------------------------------------------------------- */

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Is t safe now?  A NATIVE thread becomes HELD; a running one that is
 * outside rewritten code (cp__inside 0) is held there (2). */
static bool make_safe(cp_thread_t *t) {
  int s = state_of(t);
  if (s == CP_TS_NATIVE &&
      __atomic_compare_exchange_n(&t->state, &s, CP_TS_HELD, false,
                                  __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    return true;
  if (s == CP_TS_PARKED || s == CP_TS_HELD || s == CP_TS_STARTING)
    return true;
  int out = 0;
  return s == CP_TS_RUNNING && t->inside &&
         (__atomic_compare_exchange_n(t->inside, &out, 2, false,
                                      __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) ||
          out == 2);
}

/* Waits, registry lock held, until every thread but self is safe. */
static void stop_world(cp_thread_t *self, const char *why) {
  __atomic_store_n(&cp__stopping, 1, __ATOMIC_SEQ_CST);
  double start = now(), deadline = start + (double)cp__safepoint_timeout_ms / 1e3;
  for (;;) {
    cp_thread_t *laggard = NULL;
    double t_now = now();
    for (cp_thread_t *t = cp__threads_list, *next; t; t = next) {
      next = t->next;
      if (t == self || make_safe(t))
        continue;
      /* Dead without its exit hook: looked for only once the wait is not
       * short, as it costs a system call per thread. */
      if (t_now - start > 0.05 && !cp__thread_alive(t)) {
        cp__thread_reap(t);
        continue;
      }
      if (!laggard)
        laggard = t;
    }
    int stranger_tid = 0;
    int inside = cp__strangers_hold(&stranger_tid);
    if (!laggard && !inside)
      return;
    if (t_now >= deadline) {
      if (laggard)
        refuse(laggard, why);
      refuse_stranger(stranger_tid, inside, why);
    }
    /* A stranger's way out signals nothing (it may be a handler's): look
     * again soon. */
    double step = inside ? 0.001 : 0.05;
    double until = t_now + step < deadline ? t_now + step : deadline;
    struct timespec ts = {(time_t)until,
                          (long)((until - (double)(time_t)until) * 1e9)};
    pthread_cond_timedwait(&arrive_cond, &cp__reg_mutex, &ts);
  }
}

static void resume_world(void) {
  for (cp_thread_t *t = cp__threads_list; t; t = t->next) {
    int s = CP_TS_HELD;
    __atomic_compare_exchange_n(&t->state, &s, CP_TS_NATIVE, false,
                                __ATOMIC_RELEASE, __ATOMIC_RELAXED);
    int held = 2;
    if (t->inside) /* NULL until the thread runs (STARTING) */
      __atomic_compare_exchange_n(t->inside, &held, 0, false, __ATOMIC_RELEASE,
                                  __ATOMIC_RELAXED);
  }
  cp__strangers_let_go();
  epoch++;
  __atomic_store_n(&cp__stopping, 0, __ATOMIC_SEQ_CST);
  pthread_cond_broadcast(&resume_cond);
}

void cp__safepoint(const char *why) {
  cp_thread_t *self = cp__thread();
  if (cp__native_nest) {
    /* A signal handler inside a region runs (cp__signal_enter) and is
     * no place to stop; any other code the blocking call runs back (a
     * callback, an init routine) ends the region, as an allocation
     * there does (cp__heap_slow), and stops here like any thread. */
    if (state_of(self) == CP_TS_RUNNING)
      return;
    cp__native_end(self);
  }
  sigset_t old;
  hold_signals(&old);
  /* Not a cancellation point: a thread cancelled in the condition waits
   * below (pthread_cancel of a worker parked for the switch) woke holding
   * the registry lock and unwound with it, and every other thread hung. */
  int cancel;
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
  cp__reg_lock();
  if (!cp__pending() || cp__wide) {
    /* nothing to do */
  } else if (leader) {
    cp__park(self);
  } else {
    leader = self;
    stop_world(self, why);
    uint32_t n = 0;
    for (cp_thread_t *t = cp__threads_list; t; t = t->next)
      n++;
    cp__switch_threads = n;
    cp__switch_run(why);
    resume_world();
    leader = NULL;
  }
  cp__reg_unlock();
  pthread_setcancelstate(cancel, NULL);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void cp__safepoint_after_fork(void) {
  leader = NULL;
  epoch++;
  cp__stopping = 0;
  cp__strangers_after_fork();
  pthread_cond_init(&arrive_cond, NULL);
  pthread_cond_init(&resume_cond, NULL);
  for (cp_thread_t *t = cp__threads_list; t; t = t->next) {
    if (state_of(t) == CP_TS_PARKED)
      t->state = CP_TS_RUNNING;
    if (state_of(t) == CP_TS_HELD) /* forked inside a native region */
      t->state = CP_TS_NATIVE;
  }
}

/* ---- public entries ------------------------------------------------------ */

void cp_safepoint_slow(void) {
  if (!cp__pending() || cp__wide)
    return;
  if (cp__compact_depth) {
    __atomic_fetch_add(&cp__safepoints_deferred, 1, __ATOMIC_RELAXED);
    cp_thread_t *t = cp__self;
    if (t)
      __atomic_store_n(&t->deferred_depth, cp__compact_depth, __ATOMIC_RELAXED);
    return;
  }
  cp__safepoint("high-water mark");
}

void cp_switch_to_wide(void) {
  cp__init();
  if (cp__wide)
    return;
  if (cp__build_known && cp__build == CP_BUILD_COMPACT_ONLY)
    cp__fatal("cp_switch_to_wide() called in a program built compact-only");
  if (cp__compact_depth)
    cp__fatal("cp_switch_to_wide() called while a compact body is active; "
              "call it from code that is not layout-dependent");
  if (cp__native_nest)
    cp__fatal("cp_switch_to_wide() called inside a native region "
              "(CP_NATIVE, cp_native_enter); call it after leaving it");
  cp__lock();
  if (!cp__pending())
    cp__pending_since = cp__allocs_so_far();
  cp__set_pending(1);
  cp__unlock();
  cp__safepoint("cp_switch_to_wide()");
}

void cp_request_switch(void) {
  cp__init();
  if (cp__build_known && cp__build == CP_BUILD_COMPACT_ONLY)
    cp__fatal("cp_request_switch() called in a program built compact-only");
  cp__lock();
  if (!cp__wide && !cp__pending()) {
    cp__pending_since = cp__allocs_so_far();
    cp__set_pending(1);
  }
  cp__unlock();
}

/* Into the outermost native region (its compact depth recorded at the
 * entry): allocation and free there reach cp__heap_slow and stop, and the
 * thread counts as stopped. */
static void into_region(cp_thread_t *t) {
  cp__heap = &cp__heap_empty;
  unsigned d = __atomic_load_n(&t->native_depth, __ATOMIC_RELAXED);
  __atomic_store_n(&t->state, d ? CP_TS_NATIVE_UNSAFE : CP_TS_NATIVE,
                   __ATOMIC_SEQ_CST);
  /* A leader waiting for this thread need not wait for its timeout.  With
   * the signals held: a handler that jumps out of the region from here
   * (siglongjmp, which cp__jump_landed supports) would leave the registry
   * lock taken. */
  if (__atomic_load_n(&cp__stopping, __ATOMIC_SEQ_CST)) {
    sigset_t old;
    hold_signals(&old);
    cp__reg_lock();
    pthread_cond_broadcast(&arrive_cond);
    cp__reg_unlock();
    pthread_sigmask(SIG_SETMASK, &old, NULL);
  }
}

void cp_native_enter(void) {
  int e = errno;
  cp_thread_t *t = cp__thread();
  if (cp__native_nest++ == 0) {
    __atomic_store_n(&t->native_depth, cp__compact_depth, __ATOMIC_RELAXED);
    into_region(t);
  }
  errno = e;
}

int cp__signal_enter(void) {
  /* By the state, not native_nest: the signal may land between the
   * count's change and the state's in cp_native_enter or leave. */
  cp_thread_t *t = cp__self;
  int now = t ? state_of(t) : CP_TS_RUNNING;
  if (now != CP_TS_NATIVE && now != CP_TS_HELD)
    return 0;
  int e = errno;
  for (;;) {
    int s = CP_TS_NATIVE;
    /* NATIVE -> RUNNING: from here the switch waits for this thread. */
    if (__atomic_compare_exchange_n(&t->state, &s, CP_TS_RUNNING, false,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      break;
    if (s != CP_TS_HELD) { /* NATIVE_UNSAFE: no switch runs meanwhile */
      errno = e;
      return 0;
    }
    /* HELD: the switch is running.  No lock in a handler: sleep a little
     * until resume_world hands NATIVE back. */
    struct timespec ts = {0, 100 * 1000};
    nanosleep(&ts, NULL);
  }
  errno = e;
  return 1;
}

void cp__signal_leave(int *entered) {
  if (!*entered)
    return;
  /* Back in the region.  A leader waiting for this thread sees it at its
   * next timed check (no condition variable in a handler). */
  __atomic_store_n(&cp__self->state, CP_TS_NATIVE, __ATOMIC_SEQ_CST);
}

/* ---- calls out of rewritten code ----------------------------------------- */

/* Outside -> inside, once a switch that holds the thread is over.  No lock
 * and no allocation: the function entered may be a signal handler.  A
 * short sleep while held: the switch takes milliseconds at least. */
int cp__come_inside(void) {
  for (;;) {
    int out = 0;
    if (__atomic_compare_exchange_n(&cp__inside, &out, 1, false,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      return 1;
    if (out == 1)
      return 0;
    struct timespec ts = {0, 100 * 1000};
    nanosleep(&ts, NULL);
  }
}

int cp__enter_slow(void) {
  int e = errno;
  /* A thread a pool or a library of a file without compactptr.h started
   * with libc's pthread_create, calling a task or a callback of a
   * rewritten file.  Before, it came inside unnoticed, and a switch moved
   * the list it walked under it (SIGSEGV or exit 70 in 7 of 8 runs). */
  if (__builtin_expect(cp__self == NULL, 0))
    cp__stranger_come();
  /* The only thread of the process (a main outside, calling a rewritten
   * function of another file in a loop): no switch can be stopping it, so
   * it comes inside without the compare-and-swap that orders it against
   * one.  A thread created later sees this store (thread creation orders
   * it).  Measured: 20M calls from such a main took 0.28 s with the
   * compare-and-swap. */
  if (__libc_single_threaded &&
      __atomic_load_n(&cp__inside, __ATOMIC_RELAXED) == 0) {
    __atomic_store_n(&cp__inside, 1, __ATOMIC_RELAXED);
    errno = e;
    return 1;
  }
  int r = cp__come_inside();
  errno = e;
  return r;
}

void cp__call_back_slow(void) {
  int e = errno;
  cp__come_inside();
  errno = e;
}

/* ---- unwinding out of rewritten code --------------------------------------
 */

/* What an unwinding through cp__outside_run or a thread's start puts back:
 * the thread's chain, compact depth and native nesting before the call,
 * and whether it was outside then. */
typedef struct unwind {
  cp_frame_t *top;
  unsigned depth, nest;
  int outside;
} unwind_t;

__attribute__((visibility("hidden"))) void cp__unwound_settle(void *p);
void cp__unwound_settle(void *p) {
  unwind_t *u = p;
  cp__jump_settle(u->top, u->depth, u->nest); /* inside, once let go */
  if (u->outside)
    __atomic_store_n(&cp__inside, 0, __ATOMIC_RELEASE);
}

/* The cleanup routine glibc calls when a cancellation or pthread_exit
 * unwinds through a frame that registered it.  It runs where the unwinding
 * landed (the registering frame's stack pointer), just above the frames it
 * left, which a switch holding the thread may be reading: before anything
 * else it moves the stack pointer below the lowest frame of the thread's
 * chain (as cp__jump_landed does) and settles there.  Its own call pushed
 * only the return address, over the left callee's own. */
void cp__unwound(void *u);
__asm__(".text\n"
        ".globl cp__unwound\n"
        ".hidden cp__unwound\n"
        ".type cp__unwound, @function\n"
        "cp__unwound:\n\t"
        "movq cp__frame_top@gottpoff(%rip), %rax\n\t"
        "movq %fs:(%rax), %rax\n\t"
        "movq %rsp, %rcx\n\t"
        "subq %rax, %rcx\n\t"
        "cmpq $0x4000000, %rcx\n\t"
        "jb 1f\n\t"
        "movq %rsp, %rax\n"
        "1:\n\t"
        "movq %rsp, %rcx\n\t"
        "leaq -256(%rax), %rsp\n\t"
        "andq $-16, %rsp\n\t"
        "pushq %rcx\n\t"
        "pushq %rbx\n\t"
        "call cp__unwound_settle\n\t"
        "popq %rbx\n\t"
        "popq %rcx\n\t"
        "movq %rcx, %rsp\n\t"
        "ret\n\t"
        ".size cp__unwound, .-cp__unwound\n");

/* No cleanup registered here: a longjmp past this frame (a library's
 * error path through the entry's callback) would leave it in glibc's list
 * of the thread, and a later pthread_exit or cancellation would jump into
 * the dead frame (SIGSEGV in every run).  Only the thread's start, which
 * no jump leaves, registers one (cp__start_run). */
void cp__outside_run(void (*call)(void *), void *ctx) {
  int in = cp__enter_slow();
  call(ctx);
  cp__exit(&in);
}

void cp__start_run(void *(*fn)(void *), void *arg, bool outside, void **ret) {
  unwind_t u = {cp__frame_top, cp__compact_depth, cp__native_nest, outside};
  pthread_cleanup_push(cp__unwound, &u);
  *ret = fn(arg);
  pthread_cleanup_pop(0);
}

/* Back from a native region: running again, once a switch that holds the
 * thread is over. */
static void leave_region(cp_thread_t *t) {
  cp__heap = t->heap;
  for (;;) {
    int s = state_of(t);
    if (s != CP_TS_HELD &&
        __atomic_compare_exchange_n(&t->state, &s, CP_TS_RUNNING, false,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      break;
    /* HELD: the switch is running; wait until it hands NATIVE back, with
     * the asynchronous signals held as a parked thread holds them. */
    sigset_t old;
    hold_signals(&old);
    int cancel; /* as in cp__safepoint */
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
    cp__reg_lock();
    while (state_of(t) == CP_TS_HELD)
      pthread_cond_wait(&resume_cond, &cp__reg_mutex);
    cp__reg_unlock();
    pthread_setcancelstate(cancel, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
  }
}

void cp_native_leave(void) {
  int e = errno;
  cp_thread_t *t = cp__self;
  if (!t || cp__native_nest == 0) {
    errno = e;
    return;
  }
  /* Running first, the count after: a jump that lands in between (a
   * handler's siglongjmp) finds the count above its setjmp's and settles
   * the region itself (cp__jump_landed). */
  if (cp__native_nest == 1)
    leave_region(t);
  cp__native_nest--;
  errno = e;
}

void cp__native_end(cp_thread_t *t) {
  int e = errno;
  cp__native_nest = 0;
  leave_region(t);
  errno = e;
}

void cp__jump_settle(cp_frame_t *top, unsigned depth, unsigned nest) {
  /* On a stack below every frame of the chain (cp__jump_landed), so
   * nothing here writes what a switch holding the thread may read. */
  int e = errno;
  int cancel;
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
  cp_thread_t *t = cp__self;
  cp__come_inside(); /* a jump out of a call out of rewritten code */
  if (!t) {          /* unknown: no switch walks it, and it entered no region */
    cp__frame_top = top;
    cp__compact_depth = depth;
    pthread_setcancelstate(cancel, NULL);
    errno = e;
    return;
  }
  /* Running, once a switch that holds the thread is over.  Found running
   * already (a handler's cp__signal_enter, or between cp_native_enter's
   * count and its state) or in a region entered under a compact body, no
   * switch walks the thread meanwhile. */
  int s = state_of(t);
  if (s == CP_TS_NATIVE || s == CP_TS_HELD)
    leave_region(t);
  cp__frame_top = top;
  cp__compact_depth = depth;
  cp__native_nest = nest;
  if (nest == 0) {
    cp__heap = t->heap;
    __atomic_store_n(&t->state, CP_TS_RUNNING, __ATOMIC_SEQ_CST);
  } else {
    /* Back in the region the setjmp was called in (a jump within one
     * CP_NATIVE statement): stopped again, as cp_native_enter made it. */
    into_region(t);
  }
  pthread_setcancelstate(cancel, NULL);
  errno = e;
}
