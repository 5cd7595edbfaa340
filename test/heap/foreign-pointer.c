// A pool allocator carving objects out of one malloc'd buffer, its pieces
// cast to the compact type: the first store of such a pointer into a
// compact field stops the program with one line naming the pointer, in
// every build with handles (no COMPACTPTR_DEBUG needed), where storing it
// would keep a handle naming something else and print a wrong result
// (natively 499500; a truncated handle walked the list to 999).
// REQUIRES: plugin
// RUN: %clang %cflags -O2 %s -o %t.native && %t.native | FileCheck --check-prefix=NATIVE %s
// NATIVE: 499500
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co
// RUN: not %t.co 2>&1 | FileCheck %s
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=switchable %s %runtime -o %t.sw
// RUN: not %t.sw 2>&1 | FileCheck %s
// CHECK-NOT: 999
// CHECK: compactptr: pointer {{0x[0-9a-f]+}} stored into a compact field is not in the compact arena: the object was not allocated by compactptr (a pool or bump allocator carving objects out of its own buffer
// The plugin's `wide` build stores native pointers: nothing to check.
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=wide %s %runtime -o %t.wide
// RUN: %t.wide | FileCheck --check-prefix=NATIVE %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT ent {
  int key;
  struct ent *next;
};

static char *pool;
static size_t used;

static void *localmalloc(size_t n) {
  if (!pool)
    pool = malloc(32768);
  void *p = pool + used;
  used += (n + 15) & ~(size_t)15;
  return p;
}
/* Called through a pointer the plugin cannot follow: where it sees the
   pool, unannotated-allocator refuses the program at compile time
   (test/diagnostics/unannotated-allocator.c); this tests the runtime's
   check behind it. */
static void *(*volatile pool_alloc)(size_t) = localmalloc;

int main(void) {
  struct ent *head = NULL;
  for (int i = 0; i < 1000; i++) {
    struct ent *e = (struct ent *)pool_alloc(sizeof *e);
    e->key = i;
    e->next = head;
    head = e;
  }
  long sum = 0;
  for (struct ent *e = head; e; e = e->next)
    sum += e->key;
  printf("%ld\n", sum);
  return 0;
}
