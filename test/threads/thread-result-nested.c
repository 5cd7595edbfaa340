// A tree of threads: each inner thread starts four children, joins them
// into a compact pointer of its own (`(void **)&kid`), links their
// results under a node of its own and ends with it through a helper that
// calls pthread_exit; the leaves build lists.  Threads end and are joined
// in waves while the heap grows, so a switch comes while some results
// are kept and some joins are under way.  glibc gives a joined thread's
// id to the next thread it starts: before, a new thread's result then
// replaced a result of the same id its joiner had not yet taken, and the
// joiner got the address the switch had left behind (exit 70 in 34 of 200
// runs of the reduced program).  The runtime now matches a result by the
// thread's id and the value it handed libc.
// REQUIRES: plugin
// RUN: %clang %cflags -O2 %s -lpthread -o %t.native
// RUN: %clang %cflags -O2 -Werror -fplugin=%plugin %s %runtime -o %t -lpthread
// RUN: %t.native > %t.expect
// RUN: %t 30 | diff %t.expect -
// A switch a process: 40 of them.
// RUN: bash -c 'for i in $(seq 20); do for l in 512K 1M; do env COMPACTPTR_ARENA_LIMIT=$l %t 2 | diff %t.expect - || exit 1; done; done'
// RUN: env COMPACTPTR_ARENA_LIMIT=768K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 1 2> %t.err | diff %t.expect -
// RUN: FileCheck %s < %t.err
// CHECK: switch to wide mode {{.*}} verified
#include <compactptr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT tnode {
  struct tnode *kid[4];
  struct tnode *items;
  int id, count;
};

static void finish(struct tnode *t) __attribute__((noreturn));
static void finish(struct tnode *t) { pthread_exit(t); }

static struct tnode *leaf_list(int id) {
  struct tnode *head = calloc(1, sizeof *head);
  head->id = id;
  for (int i = 0; i < 1200 + id * 17; i++) {
    struct tnode *x = calloc(1, sizeof *x);
    x->id = id * 10000 + i;
    x->items = head->items;
    head->items = x;
    head->count++;
  }
  return head;
}

static void *grow(void *arg) {
  long id = (long)arg;
  if (id >= 5)
    finish(leaf_list((int)id));
  struct tnode *me = calloc(1, sizeof *me);
  me->id = (int)id;
  pthread_t t[4];
  for (long k = 0; k < 4; k++)
    if (pthread_create(&t[k], NULL, grow, (void *)(id * 4 + k + 1)))
      exit(3);
  for (int k = 0; k < 4; k++) {
    struct tnode *kid;
    if (pthread_join(t[k], (void **)&kid))
      exit(3);
    me->kid[k] = kid;
    me->count += kid->count;
  }
  finish(me);
}

static long total(const struct tnode *t) {
  long s = t->id;
  for (const struct tnode *x = t->items; x; x = x->items)
    s += x->id;
  for (int k = 0; k < 4; k++)
    if (t->kid[k])
      s += total(t->kid[k]);
  return s;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 1;
  long last = 0;
  for (int r = 0; r < rounds; r++) {
    pthread_t t;
    struct tnode *root;
    if (pthread_create(&t, NULL, grow, (void *)0) || pthread_join(t, (void **)&root))
      return 3;
    long s = total(root);
    if (r && s != last)
      return 4;
    last = s;
  }
  printf("%ld\n", last);
  return 0;
}
