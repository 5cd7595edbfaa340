// A node from a malloc wrapper in another file, linked into a list of
// runtime-allocated nodes.  In a -no-pie executable glibc's brk heap lies
// below the handles' reach, so the encode check cannot tell the wrapper's
// block from the arena's objects and the store goes through (the program
// is right until the switch: the block is in the compact layout).  The
// switch must then stop with one line naming the block, not move the list
// around it and print a wrong sum.  (In a position-independent executable
// the first store already stops the program: heap/foreign-pointer.c.)
// REQUIRES: plugin
// RUN: %clang %cflags -O2 %s %S/Inputs/xalloc.c -o %t.native && %t.native > %t.expected
// RUN: %clang %cflags -O2 -fno-pic -no-pie -fplugin=%plugin %s %S/Inputs/xalloc.c %runtime -o %t
// RUN: %t > %t.out
// RUN: diff %t.expected %t.out
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_HIGH_WATER=50 not %t 2>&1 >/dev/null | FileCheck %s
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_HIGH_WATER=50 COMPACTPTR_VERIFY=1 not %t 2>&1 >/dev/null | FileCheck %s
// CHECK: compactptr: the switch to wide mode found a compact-pointer field holding 0x{{[0-9a-f]+}}, an object outside the compact heap: the runtime did not allocate it (an allocation hook or a wrapper in another file: declare it CP_ALLOCATOR
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

void *xalloc(size_t n);

struct CP_COMPACT bead {
  int v;
  struct bead *next;
};

int main(void) {
  struct bead *h = NULL;
  for (int i = 0; i < 200000; i++) {
    struct bead *n = i == 7 ? xalloc(sizeof *n) : malloc(sizeof *n);
    n->v = i;
    n->next = h;
    h = n;
  }
  long s = 0;
  for (struct bead *n = h; n; n = n->next)
    s = s * 3 + n->v;
  printf("sum %ld\n", s);
  return 0;
}
