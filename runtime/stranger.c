/*
 * stranger.c - threads the runtime has never met, inside rewritten code.
 *
 * A thread pool or an event library in a file built without compactptr.h
 * starts its workers with libc's pthread_create, and they run tasks and
 * callbacks of rewritten files: entries (cp__enter_slow).  Such a thread is
 * not on the thread list, and attaching it there at its first entry is
 * not possible: the entry may be a signal handler, and attaching
 * allocates and locks (a handler that interrupted free() hung in calloc).
 *
 * So the thread takes a slot here instead, at its first entry, with one
 * compare-and-swap: the slot holds the address of its cp__inside, and from
 * then on the thread follows the protocol of a known thread's calls out
 * (docs/switch.md, "Calls out of rewritten code").  Inside (1) the switch
 * waits for it; outside (0) -- between two tasks, or in a call out of a
 * task to another file's function, a wait on the pool's condition
 * variable -- the switch holds it there (0 -> 2) and it waits on its way
 * back in until the switch is over.  (Counted while inside, as before, a
 * task that waited in a call out for the thread that switches held the
 * switch up until its timeout.)
 *
 * A slot is the thread's until it exits (its exit hook gives it back) or
 * it becomes known (it allocated: cp__thread_attach).  Both give it back
 * under the registry lock, which the leader holds whenever it uses a slot,
 * so it never writes to the cp__inside of a thread that has gone.  Taking
 * a slot is lock-free and safe in a handler; it is ordered against a stop
 * as the two sides of Dekker's algorithm: the thread writes its slot, then
 * reads cp__stopping; the leader writes cp__stopping, then reads the slots
 * (all sequentially consistent), so either the leader sees the slot or the
 * thread sees the stop and waits until it is over.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <time.h>
#include <unistd.h>

/* Enough for any pool; a process that has more such threads inside at
 * once stops with a message (one that exits gives its slot back). */
#define SLOTS 4096

static int *slots[SLOTS];
static int slot_tids[SLOTS]; /* kernel thread ids, for a refusal's message */
static int slots_used;       /* every taken slot is below this index */
static __thread int slot_of; /* the thread's slot + 1; 0 if it has none */

static void sleep_a_little(void) {
  struct timespec ts = {0, 100 * 1000};
  nanosleep(&ts, NULL);
}

void cp__stranger_come(void) {
  if (slot_of)
    return;
  int i = 0;
  for (;; i++) {
    if (i == SLOTS)
      cp__fatal("more than %d threads the runtime has not met (started by "
                "code built without compactptr.h) came into rewritten code: "
                "start them with cp_thread_create, or pthread_create in a "
                "file that includes compactptr.h",
                SLOTS);
    int *none = NULL;
    if (!__atomic_load_n(&slots[i], __ATOMIC_RELAXED) &&
        __atomic_compare_exchange_n(&slots[i], &none, &cp__inside, false,
                                    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
      break;
  }
  /* A handler that ran between the two took a slot of its own: keep
   * that one. */
  int mine = 0;
  if (!__atomic_compare_exchange_n(&slot_of, &mine, i + 1, false,
                                   __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    __atomic_store_n(&slots[i], NULL, __ATOMIC_RELEASE);
    return;
  }
  __atomic_store_n(&slot_tids[i], (int)gettid(), __ATOMIC_RELAXED);
  int used = __atomic_load_n(&slots_used, __ATOMIC_RELAXED);
  while (used <= i &&
         !__atomic_compare_exchange_n(&slots_used, &used, i + 1, true,
                                      __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
    ;
  cp__stranger_hook();
  /* A leader that read the slots before this one was taken may be running
   * the switch: wait until it is over. */
  while (__atomic_load_n(&cp__stopping, __ATOMIC_SEQ_CST))
    sleep_a_little();
}

void cp__stranger_gone(void) {
  int i = slot_of;
  if (!i)
    return;
  slot_of = 0;
  __atomic_store_n(&slots[i - 1], NULL, __ATOMIC_RELEASE);
}

int cp__strangers_hold(int *tid) {
  int used = __atomic_load_n(&slots_used, __ATOMIC_SEQ_CST), inside = 0;
  for (int i = 0; i < used; i++) {
    int *p = __atomic_load_n(&slots[i], __ATOMIC_SEQ_CST);
    int out = 0;
    if (p &&
        !__atomic_compare_exchange_n(p, &out, 2, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE) &&
        out == 1 && inside++ == 0)
      *tid = __atomic_load_n(&slot_tids[i], __ATOMIC_RELAXED);
  }
  return inside;
}

void cp__strangers_let_go(void) {
  int used = __atomic_load_n(&slots_used, __ATOMIC_SEQ_CST);
  for (int i = 0; i < used; i++) {
    int *p = __atomic_load_n(&slots[i], __ATOMIC_SEQ_CST), held = 2;
    if (p)
      __atomic_compare_exchange_n(p, &held, 0, false, __ATOMIC_RELEASE,
                                  __ATOMIC_RELAXED);
  }
}

void cp__strangers_after_fork(void) {
  for (int i = 0; i < SLOTS; i++)
    if (i + 1 != slot_of)
      slots[i] = NULL;
}
