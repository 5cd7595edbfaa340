// A local value of compact type whose address is kept in a local `void *`
// before it is handed on -- as glibc's pthread_cleanup_push keeps its
// argument (`void *__cancel_arg = (arg);`) -- and then comes back as a
// compact pointer lives in the compact heap, as when the address is handed
// on directly.  Before, it stayed a wide value that the callee read in
// the compact layout: "id 0" for "id 7", exit 0, no diagnostic.  An
// address kept in a variable that only meets bytes stays wide.
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %clang %cflags -O2 %s -o %t.native -lpthread && %t.native > %t.native.out
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co -lpthread && %t.co | diff %t.native.out -
// RUN: %clang %cflags -O2 -fplugin=%plugin %s %runtime -o %t.sw -lpthread && %t.sw | diff %t.native.out -
// RUN: %t.native 100000 > %t.native.big
// RUN: env COMPACTPTR_VERIFY=1 COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_STATS=1 %t.sw 100000 2> %t.stats | diff %t.native.big -
// RUN: FileCheck --check-prefix=SWITCHED %s < %t.stats
// SWITCHED: compactptr: switch to wide mode
#include <compactptr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT node {
  int k;
  struct node *next;
};
/* Holds a compact pointer: compact too. */
struct owned {
  struct node *list;
  long sum;
  int id;
};

static long n_nodes = 10;

static void report(void *p) {
  struct owned *o = p;
  long s = 0;
  for (struct node *n = o->list; n; n = n->next)
    s += n->k;
  printf("id %d sum %ld\n", o->id, s);
}

/* The parameter, kept in a local, then converted. */
static void report_kept(void *p) {
  void *q;
  q = p;
  report(q);
}

/* A list of its own: handed a `struct owned *`, it would box the local
 * by itself. */
static struct node *fill(void) {
  struct node *list = NULL;
  for (long i = 0; i < n_nodes; i++) {
    struct node *n = malloc(sizeof *n);
    n->k = (int)(i % 100);
    n->next = list;
    list = n;
  }
  return list;
}

static void *worker(void *unused) {
  (void)unused;
  struct owned w = {NULL, 0, 9};
  // CHECK: struct owned *cp__box_w __attribute__((cleanup(cp__box_free))) = {{.*}}
  w.list = fill();
  pthread_cleanup_push(report, (void *)&w);
  pthread_cleanup_pop(1);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1)
    n_nodes = atol(argv[1]);
  struct owned o = {NULL, 0, 7};
  // CHECK: struct owned *cp__box_o __attribute__((cleanup(cp__box_free))) = {{.*}}
  o.list = fill();
  void *arg = &o;
  report(arg);
  struct owned o2 = {NULL, 0, 8};
  // CHECK: struct owned *cp__box_o2 __attribute__((cleanup(cp__box_free))) = {{.*}}
  o2.list = fill();
  void *kept;
  kept = &o2;
  report_kept(kept);
  /* Only bytes: a snapshot compared byte for byte, in the wide layout. */
  struct owned plain = {NULL, 0, 1}, copy;
  // CHECK: struct owned plain = {NULL, 0, 1}, copy;{{.*}}
  const void *bytes = &plain;
  memcpy(&copy, bytes, sizeof plain);
  printf("same bytes: %d\n", memcmp(&copy, &plain, sizeof plain) == 0);
  pthread_t t;
  if (pthread_create(&t, NULL, worker, NULL) != 0 || pthread_join(t, NULL) != 0)
    return 1;
  return 0;
}
