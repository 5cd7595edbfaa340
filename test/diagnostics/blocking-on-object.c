// Switchable mode: a blocking call handed memory inside a compact heap
// object (a mutex in a node, a buffer `read` fills) gets no native region
// -- the switch cannot move an object a waiter or the kernel holds the
// address of -- and a warning says so.  Memory of a variable of compact
// type that stays in wide layout where it is declared (a queue struct
// holding the head of a list of compact jobs, with its mutex and condition
// variable) is not in the heap: its calls are native regions, with no
// warning (a worker waiting there used to hold up the switch until the
// program stopped).  A compact struct whose variable's address becomes a
// compact pointer lives in the heap: its mutex is inside a compact object
// again.  (In switchable mode such a struct is pinned -- left in place,
// not compact -- unless annotated: rewrite/pinned-types.c.)
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-Wno-compactptr-void-escape -fsyntax-only %s 2>&1 | FileCheck --check-prefix=WARN --implicit-check-not=warning: %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Werror %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-dump=- -fsyntax-only %s 2>&1 | FileCheck %s
#include <compactptr.h>
#include <pthread.h>
#include <unistd.h>

struct CP_COMPACT job {
  long n;
  struct job *next;
  pthread_mutex_t lock;
  char buf[16];
};

struct queue { // compact by inference: it holds a compact pointer
  struct job *head;
  int closed;
  pthread_mutex_t mu;
  pthread_cond_t cv;
};
static struct queue q = {0, 0, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER};

struct CP_COMPACT registry {
  struct registry *self;
  struct job *first;
  pthread_mutex_t mu;
};
static struct registry reg; // its address is stored as a compact pointer

struct job *take(void) {
  pthread_mutex_lock(&q.mu);
  while (!q.head && !q.closed)
    pthread_cond_wait(&q.cv, &q.mu);
  struct job *j = q.head;
  if (j)
    q.head = j->next;
  pthread_mutex_unlock(&q.mu);
  return j;
}
// CHECK-LABEL: struct job *take(void) {
// CHECK: cp_native_enter()
// CHECK: pthread_cond_wait(

long fill(struct job *j, int fd) {
  pthread_mutex_lock(&j->lock);
  // WARN: blocking-on-object.c:[[@LINE-1]]:22: warning: 'pthread_mutex_lock' is handed memory inside a compact object, which the switch would move while the call uses it
  long k = read(fd, j->buf, sizeof j->buf);
  // WARN: blocking-on-object.c:[[@LINE-1]]:21: warning: 'read' is handed memory inside a compact object
  pthread_mutex_unlock(&j->lock);
  return k;
}

void enroll(void) {
  reg.self = &reg;
  pthread_mutex_lock(&reg.mu);
  // WARN: blocking-on-object.c:[[@LINE-1]]:22: warning: 'pthread_mutex_lock' is handed memory inside a compact object
  pthread_mutex_unlock(&reg.mu);
}

// A lock outside the heap picked by a number read from a node (a shard
// index): the memory handed over is the global array's, so the call is a
// native region, without a warning (the warning took the index's node
// for the lock's, and a switch while a thread waited there stopped the
// program).
static pthread_mutex_t shard_locks[8];
// CHECK-LABEL: long by_shard(struct job *j) {
// CHECK: cp_native_enter()
// CHECK-NEXT: pthread_mutex_lock(&shard_locks[
long by_shard(struct job *j) {
  pthread_mutex_lock(&shard_locks[j->n & 7]);
  long k = j->n;
  pthread_mutex_unlock(&shard_locks[j->n & 7]);
  return k;
}

// The address of a compact pointer variable is the variable's memory (a
// consumer reading pointers from a pipe): a native region, and no
// blocking-on-object warning (it took the variable for memory inside the
// node it points to, and the switch waited for the reader until the
// program stopped); what the read brings is warned as pointer bytes from
// a pipe (void-escape, off here: diagnostics/pointer-bytes.c).
// CHECK-LABEL: long take_from(int fd) {
// CHECK: cp_native_enter()
// CHECK-NEXT: read(fd, &m, sizeof m)
long take_from(int fd) {
  struct job *m = 0;
  long k = 0;
  while (read(fd, &m, sizeof m) == sizeof m && m)
    k += m->n;
  return k;
}

// An element of an array of compact pointers, global or local, that
// pthread_join writes a thread's result into: the array's memory, so a
// native region and no warning (the element's compact pointer was taken
// for memory inside the node it points to: no region, and the switch
// waited for the joiner until the program stopped, 7 of 10 runs).
static struct job *results[4];
// CHECK-LABEL: long join_all(pthread_t *t) {
// CHECK: cp_native_enter()
// CHECK-NEXT: pthread_join(
// CHECK: cp_native_enter()
// CHECK-NEXT: pthread_join(
long join_all(pthread_t *t) {
  struct job *mine[2];
  long k = 0;
  for (int i = 0; i < 4; i++)
    pthread_join(t[i], (void **)&results[i]);
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], (void **)&mine[i]);
  for (int i = 0; i < 4; i++)
    k += results[i]->n + (i < 2 ? mine[i]->n : 0);
  return k;
}
