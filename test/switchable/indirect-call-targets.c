// A call through a function pointer may reach any function of the file
// whose address is taken and whose type it has: a generic walk calling a
// visitor that allocates is then checked (it keeps its roots, and the
// allocation is a legal safepoint), not dual with the switch held off
// under its compact body.  Before, the arena filled while every safepoint
// was deferred, and the program stopped with exit 70.  A pointer of
// another type, or one to a function of another file, stays opaque
// (switchable/exhausted-no-safepoint.c).
// REQUIRES: plugin
// RUN: %rewrite --plan -mode=switchable %s -- %cflags | FileCheck --check-prefix=PLAN %s
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %clang %cflags -O1 %s -o %t.native
// RUN: %t.native > %t.expect
// RUN: env COMPACTPTR_ARENA_LIMIT=1536K COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: grep -q 'switch to wide mode' %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=1792K COMPACTPTR_VERIFY=1 %t | diff %t.expect -
// RUN: FileCheck %s < %t.expect
// PLAN: plan: walk (line {{[0-9]+}}): checked: calls through a function pointer, which may reach a safepoint
// PLAN: plan: count (line {{[0-9]+}}): dual: depends on a layout and reaches no safepoint it can see
// CHECK: n=60000 copies=60000 sum=3599940000
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT item {
  long v;
  struct item *next;
};

static struct item *copies;

static void copy_one(struct item *it) { // a visitor that allocates
  struct item *c = malloc(sizeof *c);
  c->v = it->v;
  c->next = copies;
  copies = c;
}

static long total;
static void add_one(struct item *it) { total += it->v; }

static void walk(struct item *h, void (*visit)(struct item *)) {
  for (; h; h = h->next)
    visit(h);
}

// Through a pointer of a type no function of this file has: opaque.
static long count(struct item *h, long (*weigh)(long)) {
  long n = 0;
  for (; h; h = h->next)
    n += weigh ? weigh(h->v) : 1;
  return n;
}

int main(void) {
  struct item *h = NULL;
  for (long i = 0; i < 60000; i++) {
    struct item *it = malloc(sizeof *it);
    it->v = i;
    it->next = h;
    h = it;
  }
  walk(h, copy_one);
  walk(copies, add_one);
  walk(h, add_one);
  printf("n=%ld copies=%ld sum=%ld\n", count(h, NULL), count(copies, NULL), total);
  return 0;
}
