// A compact local declared between pthread_cleanup_push and
// pthread_cleanup_pop, with allocating calls in its scope: glibc's pop
// closes the block the local lives in, then calls the handler, all in one
// expansion.  The handler's call is no place to save the local (it is out
// of scope there); before, the plugin saved it there and the generated
// code did not compile ("use of undeclared identifier").  The handler
// itself allocates, so the switch may come in it.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 %s -lpthread -o %t.native
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t -lpthread
// RUN: %t.native > %t.expect
// RUN: %t | diff %t.expect -
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 %t | diff %t.expect -
#include <compactptr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  struct node *next;
  long v;
};

static struct node *kept;

static struct node *make(long v, struct node *next) {
  struct node *n = malloc(sizeof *n);
  n->v = v;
  n->next = next;
  return n;
}

static void note(void *arg) {
  /* Runs at pop(1): allocates too. */
  kept = make((long)arg, kept);
}

static long sum(const struct node *x) {
  long s = 0;
  for (; x; x = x->next)
    s += x->v;
  return s;
}

static long chain(long r, struct node *n) {
  for (int i = 0; i < 50; i++)
    n = make(r + i, n);
  return sum(n);
}

static long once(long r) {
  long s;
  pthread_cleanup_push(note, (void *)r);
  struct node *n = make(r, NULL);
  n->next = make(r + 1, NULL);
  s = chain(r, n) + n->v;
  pthread_cleanup_pop(1);
  return s;
}

static long work(long rounds) {
  long s = 0;
  for (long r = 0; r < rounds; r++)
    s += once(r);
  return s;
}

int main(void) {
  long s = work(400), k = 0;
  for (struct node *x = kept; x; x = x->next)
    k += x->v;
  printf("%ld %ld\n", s, k);
  return 0;
}
