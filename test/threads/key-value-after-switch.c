// A thread's value of a pthread key that is a compact pointer (a per-thread
// log of nodes, found again with pthread_getspecific, and walked and freed
// by the key's destructor when the thread ends): the plugin wraps the
// value in cp_thread_specific, the runtime keeps it as a root while the
// thread lives, pthread_getspecific (cp_thread_getspecific) gives it back
// translated, and the thread's exit hands the translated value to libc
// before the destructor reads it.  Before, the first getspecific after a
// switch, or the destructor, read the released arena (exit 70, 5 of 5
// runs reduced; 14 of 15 with threads).
// REQUIRES: plugin
// RUN: %clang %cflags -O1 -Werror %s -lpthread -o %t.native
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t -lpthread
// RUN: %t.native > %t.expect
// RUN: %t | diff %t.expect -
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: FileCheck %s < %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=384K COMPACTPTR_VERIFY=1 %t | diff %t.expect -
// CHECK: switch to wide mode {{.*}} verified
#include <compactptr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT entry {
  struct entry *next;
  long v;
};
struct journal { // compact by inference: it holds a compact pointer
  struct entry *head;
  long n;
};

static pthread_key_t key;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long retired, retired_n;

static void retire(void *arg) {
  struct journal *j = arg;
  long s = 0, n = 0;
  for (struct entry *e = j->head, *next; e; e = next) {
    next = e->next;
    s += e->v;
    n++;
    free(e);
  }
  pthread_mutex_lock(&mu);
  retired += s;
  retired_n += n + j->n;
  pthread_mutex_unlock(&mu);
  free(j);
}

static void note(long v) {
  struct journal *j = pthread_getspecific(key);
  if (!j) {
    j = calloc(1, sizeof *j);
    pthread_setspecific(key, j);
  }
  struct entry *e = malloc(sizeof *e);
  e->v = v;
  e->next = j->head;
  j->head = e;
  j->n++;
}

static void *worker(void *arg) {
  long id = (long)arg;
  for (long i = 0; i < 6000; i++)
    note(id * 100000 + i);
  return NULL;
}

int main(void) {
  pthread_t t[4];
  if (pthread_key_create(&key, retire))
    return 1;
  for (long i = 0; i < 4; i++)
    if (pthread_create(&t[i], NULL, worker, (void *)(i + 1)))
      return 1;
  for (long i = 0; i < 20000; i++)
    note(i);
  for (int i = 0; i < 4; i++)
    pthread_join(t[i], NULL);
  struct journal *mine = pthread_getspecific(key);
  long s = 0;
  for (struct entry *e = mine->head; e; e = e->next)
    s += e->v;
  printf("main %ld entries, sum %ld; workers %ld (entries + counts), sum %ld\n",
         mine->n, s, retired_n, retired);
  return 0;
}
