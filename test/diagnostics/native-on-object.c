// Switchable mode: a native region the program declares (CP_NATIVE, or
// cp_native_enter/leave written out) around a blocking call handed memory
// inside a compact object.  The switch counts the thread as stopped and
// moves that memory while the call waits on it: a waiter on the condition
// variable of a queue struct the plugin keeps in the heap (its address is
// a compact pointer) slept on the old address, and 6 of 30 runs hung, 2
// stopped inside libc.  Refused; without the region the call is warned
// (blocking-on-object) and a switch waits for it instead.  The queue is
// annotated here: one compact only by inference is pinned instead, left
// where it is at the switch, and its waits are native regions
// (rewrite/pinned-types.c).
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Werror %s
#include <compactptr.h>
#include <pthread.h>
#include <unistd.h>

struct CP_COMPACT job {
  int n;
  struct job *next;
};
struct CP_COMPACT queue {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  struct job *head;
};
static struct queue Q = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
static pthread_cond_t outside = PTHREAD_COND_INITIALIZER;

static struct job *take(struct queue *q) {
  pthread_mutex_lock(&q->mu); // expected-warning {{'pthread_mutex_lock' is handed memory inside a compact object}}
  while (!q->head)
    CP_NATIVE(pthread_cond_wait(&q->cv, &q->mu)); // expected-error {{'pthread_cond_wait' is handed memory inside a compact object in a native region (CP_NATIVE): the switch would move that memory while the call waits on it or fills it; keep locks, condition variables and buffers outside compact objects (in a struct or a global that holds no compact pointer), or call it outside the region}}
  struct job *j = q->head;
  q->head = j->next;
  cp_native_enter();
  pthread_cond_wait(&outside, &q->mu); // expected-error {{'pthread_cond_wait' is handed memory inside a compact object in a native region}}
  cp_native_leave();
  pthread_mutex_unlock(&q->mu);
  return j;
}

struct job *next_job(void) { return take(&Q); }

// A function of the program handed it inside the region waits on it
// there just the same; a region left in an inner block (an early exit)
// is left for what follows there.
static void wait_on(pthread_cond_t *c, pthread_mutex_t *m) { pthread_cond_wait(c, m); } // expected-warning {{'pthread_cond_wait' is handed memory inside a compact object}}
static void closed(struct job *j) { j->n = -1; }
long fill(struct job *j, int fd) {
  char buf[8];
  long n;
  CP_NATIVE(wait_on(&Q.cv, &Q.mu)); // expected-error {{'wait_on' is handed memory inside a compact object in a native region}}
  cp_native_enter();
  n = read(fd, buf, sizeof buf);
  if (n <= 0) {
    cp_native_leave();
    closed(j);
    return n;
  }
  cp_native_leave();
  return n + j->n;
}
