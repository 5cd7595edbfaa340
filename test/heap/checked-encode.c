// COMPACTPTR_DEBUG=1 with -DCOMPACTPTR_CHECKED_DECODE also checks encodes:
// memory from a wrapper around calloc, stored into a compact field, stops
// the program with a message instead of a crash later.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 -DCOMPACTPTR_CHECKED_DECODE -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t
// RUN: env COMPACTPTR_DEBUG=1 not %t 2>&1 | FileCheck %s
// CHECK: compactptr: pointer {{0x[0-9a-f]+}} stored into a compact field is not in the compact arena: the object was not allocated by compactptr
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  int key;
  struct node *next;
};

/* Not an allocation of node.  Called through a pointer the plugin cannot
   follow (where it can see the calloc, unannotated-allocator refuses the
   program at compile time). */
static void *(*volatile libc_calloc)(size_t, size_t) = calloc;
static void *raw(void) { return libc_calloc(1, 64); }

int main(void) {
  struct node *a = malloc(sizeof *a);
  struct node *f = raw();
  a->next = f;
  printf("%d\n", a->next->key);
  return 0;
}
