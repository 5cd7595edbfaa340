// Built with -fexceptions (many distributions' default flags),
// pthread_cleanup_push declares a variable whose cleanup function, glibc's
// __pthread_cleanup_routine, calls the handler through a pointer when the
// block ends.  The handler here allocates: the function holding the push
// may reach a safepoint there, and its caller keeps its list in a frame
// (before: no diagnostic, exit 70 after a switch in the handler).
// REQUIRES: plugin
// RUN: %clang %cflags -O1 -fexceptions %s -o %t.native -lpthread && %t.native > %t.expect
// RUN: %clang %cflags -O1 -fexceptions -fplugin=%plugin %s %runtime -o %t -lpthread
// RUN: env COMPACTPTR_ARENA_LIMIT=512K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: grep -q 'switch to wide mode' %t.err
// RUN: FileCheck %s < %t.expect
// CHECK: total 7999000030000 spares 20000
#include <compactptr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT item {
  struct item *next;
  long weight;
};

static struct item *spares;
static long nspares;

/* The cancellation handler, run by pthread_cleanup_pop(1) as well: it puts
 * a spare item aside. */
static void set_aside(void *arg) {
  struct item *s = malloc(sizeof *s);
  s->weight = (long)arg;
  s->next = spares;
  spares = s;
  nspares++;
}

static long pair_weight(const struct item *it, long i) {
  long w;
  pthread_cleanup_push(set_aside, (void *)i);
  w = it->weight + it->next->weight;
  pthread_cleanup_pop(1);
  return w;
}

int main(void) {
  struct item *items = NULL;
  for (long i = 0; i < 20000; i++) {
    struct item *it = malloc(sizeof *it);
    it->weight = i;
    it->next = items;
    items = it;
  }
  long total = 0;
  for (long i = 0; i < 20000; i++)
    total += pair_weight(items, i) * i;
  printf("total %ld spares %ld\n", total, nspares);
  return 0;
}
