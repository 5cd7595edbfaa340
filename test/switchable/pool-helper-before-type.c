// A helper that wraps a pool of one size (`static void *grab(struct pool
// *p) { return pool_alloc(p); }`), defined before the type its pool holds:
// the rewritten helper names the type's descriptor, which is declared
// ahead of it (the file did not compile), and its `void *` result is an
// arena object, so the callers that make it a compact pointer are not
// warned foreign-object (they were), and advise agrees.  Native output compact-only,
// switchable, and across a switch with the heap verified.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 %s -o %t.native
// RUN: %t.native > %t.expect
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Werror -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck %s
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co
// RUN: %t.co | diff %t.expect -
// RUN: %t | diff %t.expect -
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: grep -q 'switch to wide mode.*verified' %t.err
// RUN: compactptr-advise %s -- %cflags | FileCheck --check-prefix=ADVISE %s
// ADVISE:      struct cell: annotated
// ADVISE:      blockers: none
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct pool {
  size_t size;
  void *free;
};
static void pool_init(struct pool *p, size_t size) {
  p->size = size;
  p->free = NULL;
}
static CP_ALLOCATOR void *pool_alloc(struct pool *p) {
  if (p->free) {
    void *r = p->free;
    p->free = *(void **)r;
    return r;
  }
  return malloc(p->size);
}
static CP_DEALLOCATOR void pool_free(struct pool *p, void *x) {
  *(void **)x = p->free;
  p->free = x;
}

// Counts what it hands out; the pool's type is known only further down.
static long grabbed;
static void *grab(struct pool *p) {
  grabbed++;
  return pool_alloc(p);
}
// CHECK:       static cp_type_desc_t cp__desc_cell; static void *grab(struct pool *p) {
// CHECK-NEXT:    grabbed++;
// CHECK-NEXT:    return {{.*}}cp__alloc_fast(&cp__desc_cell){{.*}}

struct CP_COMPACT cell {
  struct cell *next;
  int v;
};

static struct pool cells;

int main(void) {
  pool_init(&cells, sizeof(struct cell));
  struct cell *head = NULL;
  long sum = 0;
  for (int round = 0; round < 4; round++) {
    for (int i = 0; i < 30000; i++) {
      struct cell *c = grab(&cells);
      c->v = i * (round + 1);
      c->next = head;
      head = c;
    }
    // Keep every third cell, give the others back.
    for (struct cell **pp = &head; *pp;) {
      struct cell *c = *pp;
      if (c->v % 3) {
        *pp = c->next;
        pool_free(&cells, c);
      } else {
        sum += c->v;
        pp = &c->next;
      }
    }
  }
  long n = 0;
  for (struct cell *c = head; c; c = c->next)
    n++;
  printf("%ld %ld %ld\n", grabbed, n, sum);
  return 0;
}
