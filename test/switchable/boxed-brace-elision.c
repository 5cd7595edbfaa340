// A local array of structs that hold compact pointers, whose elements'
// addresses go to threads, lives in the compact heap, and its initializer
// is stored element by element.  C lets the braces of each element be left
// out (`struct state a[2] = {0}` sets a[0].count from the bare `0`; `{5,
// 0, 6}` fills a[0] and then a[1].count): such an element has no braces
// of its own in the text, and the store once printed `(struct state)0`,
// which clang refused inside the generated code (a trial's
// producer/consumer).  The element is stored as `(struct state){0}` now.
// Also explicit braces, designators and a two-dimensional array, in every
// mode, and across a switch.
// RUN: %clang %cflags -O1 -pthread %s -o %t.native
// RUN: %clang %cflags -O1 -pthread -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %clang %cflags -O1 -pthread -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co
// RUN: %clang %cflags -O1 -pthread -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=wide %s %runtime -o %t.wd
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -pthread -Werror -fplugin-arg-compactptr-mode=compact-only -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck %s
// RUN: %t.native > %t.expect
// RUN: %t.co | diff %t.expect -
// RUN: %t.wd | diff %t.expect -
// RUN: %t | diff %t.expect -
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 %t | diff %t.expect -
#include <compactptr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT msg {
  int v;
  struct msg *next;
};
struct state {
  long count;
  struct msg *kept;
};

static void *run(void *arg) {
  struct state *st = arg;
  struct msg *m = NULL;
  for (int i = 0; i < 3000; i++) {
    struct msg *n = malloc(sizeof *n);
    n->v = i;
    n->next = m;
    m = n;
  }
  st->kept = m;
  st->count++;
  return NULL;
}

static void go(struct state *s) {
  pthread_t t;
  pthread_create(&t, NULL, run, s);
  pthread_join(t, NULL);
}

static long sum(const struct state *s) {
  long t = s->count;
  for (const struct msg *m = s->kept; m; m = m->next)
    t += m->v;
  return t;
}

int main(void) {
  struct state a[2] = {0};
  // CHECK: cp__store_state(&((struct cp__c_state *)(void *)cp__b)[0], (struct state){0});
  struct state b[2] = {0, 0};
  struct state c[3] = {5, 0, 6};
  // CHECK: (struct state){5, 0}); cp__store_state(&((struct cp__c_state *)(void *)cp__b)[1], (struct state){6});
  struct state d[2] = {{1}, {2, 0}};
  // CHECK: (struct state){1}); cp__store_state(&((struct cp__c_state *)(void *)cp__b)[1], (struct state){2, 0});
  struct state e[2][2] = {1, 0, 2};
  struct state f[2] = {[1] = {.count = 9}};
  go(&a[1]), go(&b[0]), go(&c[2]), go(&d[1]), go(&e[1][0]), go(&f[0]);
  printf("%ld %ld | %ld %ld | %ld %ld %ld | %ld %ld | %ld %ld %ld | %ld %ld\n",
         sum(&a[0]), sum(&a[1]), sum(&b[0]), sum(&b[1]), sum(&c[0]),
         sum(&c[1]), sum(&c[2]), sum(&d[0]), sum(&d[1]), sum(&e[0][0]),
         sum(&e[0][1]), sum(&e[1][0]), sum(&f[0]), sum(&f[1]));
  return 0;
}
