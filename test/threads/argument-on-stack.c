// A thread's argument block on the creating thread's stack: `struct targ`
// holds a compact pointer (compact by inference), main fills an array of
// them and hands `&a[i]` to pthread_create as `void *`, and each worker
// reads it back as a `struct targ *`.  The block lives in the compact heap
// (boxed), so both sides see one layout.  (It stayed on main's stack in
// the wide layout while the workers read it in the compact one: the totals
// came back 0 with no diagnostic, in compact-only and switchable builds.)
// The same holds for any function that gets the address as `void *`
// (a callback's context); memset and memcpy, which only see the bytes, do
// not box it.  The workers start while the first of them runs the switch:
// a start argument is a root until the thread reads it, also while the
// thread waits in its start for the switch to end (it was one only before
// the thread got that far, and 5 runs of 6 read it untranslated).
// REQUIRES: plugin
// RUN: %clang %cflags -O1 -Werror %s -lpthread -o %t.native
// RUN: %t.native > %t.expect
// RUN: FileCheck %s < %t.expect
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.compact
// RUN: %t.compact | diff %t.expect -
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 %t 2> %t.err | diff %t.expect -
// RUN: grep -q 'switch to wide mode' %t.err
// CHECK: thread 0: total 199990000
// CHECK: thread 1: total 399980000
// CHECK: thread 2: total 599970000
// CHECK: visited 3 of 3, sum 6
#include <compactptr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT node {
  struct node *next;
  long v;
};

struct targ {
  struct node *keep;
  int id;
  long total;
};

static void *work(void *arg) {
  struct targ *ta = arg;
  for (int i = 0; i < 20000; i++) {
    struct node *n = malloc(sizeof *n);
    n->v = (long)ta->id * i;
    n->next = ta->keep;
    ta->keep = n;
  }
  for (struct node *n = ta->keep; n; n = n->next)
    ta->total += n->v;
  while (ta->keep) {
    struct node *n = ta->keep;
    ta->keep = n->next;
    free(n);
  }
  return NULL;
}

/* A visitor with a context pointer, as C libraries take callbacks. */
static void each(struct node *list, void (*visit)(struct node *, void *), void *ctx) {
  for (struct node *n = list; n; n = n->next)
    visit(n, ctx);
}

struct tally {
  int calls;
  struct node *last;
  long count, sum;
};

static void count(struct node *n, void *ctx) {
  struct tally *t = ctx;
  t->calls++;
  t->last = n;
  t->count++;
  t->sum += n->v;
}

int main(void) {
  struct targ a[3];
  pthread_t t[3];
  memset(a, 0, sizeof a);
  for (int i = 0; i < 3; i++) {
    a[i].id = i + 1;
    pthread_create(&t[i], NULL, work, &a[i]);
  }
  for (int i = 0; i < 3; i++) {
    pthread_join(t[i], NULL);
    printf("thread %d: total %ld\n", i, a[i].total);
  }
  struct node *list = NULL;
  for (int i = 1; i <= 3; i++) {
    struct node *n = malloc(sizeof *n);
    n->v = i;
    n->next = list;
    list = n;
  }
  struct tally tl;
  memset(&tl, 0, sizeof tl);
  each(list, count, (void *)&tl); /* not kept past the call */
  printf("visited %ld of %d, sum %ld\n", tl.count, tl.calls, tl.sum);
  return 0;
}
