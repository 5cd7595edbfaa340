// With no free range below the reach of handles (here the program maps it
// all before any constructor runs), a switchable program runs in wide mode
// from the start and prints what the native build prints; a compact-only
// program stops with one line.
// REQUIRES: plugin
// RUN: %clang %cflags -O2 %s -o %t.native && %t.native > %t.expected
// RUN: %clang %cflags -O2 -fplugin=%plugin %s %runtime -o %t.sw
// RUN: env COMPACTPTR_STATS=1 %t.sw > %t.out 2> %t.stats
// RUN: diff %t.expected %t.out
// RUN: FileCheck --check-prefix=SW %s < %t.stats
// SW: compactptr: mode wide
// SW: compactptr: handles: no compact arena (wide mode from the start)
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co
// RUN: not %t.co 2>&1 | FileCheck --check-prefix=CO %s
// CO: compactptr: cannot place the compact arena below {{[0-9]+}} bytes, where handles reach: the address range is in use; this program was built compact-only (a switchable build runs in wide mode instead)
#include <compactptr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

struct CP_COMPACT node {
  int key;
  struct node *next;
};

/* Runs before every constructor: everything from 64 KiB to 32 GiB (the
 * reach of 8-byte granules) is taken. */
static void occupy(void) {
  size_t lo = (size_t)64 << 10, hi = (size_t)32 << 30;
  void *p = mmap((void *)lo, hi - lo, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE,
                 -1, 0);
  if (p != (void *)lo) {
    perror("occupy");
    exit(3);
  }
}
__attribute__((section(".preinit_array"), used)) static void (*occupy_first)(void) = occupy;

int main(void) {
  struct node *head = NULL;
  long sum = 0;
  for (int i = 0; i < 10000; i++) {
    struct node *e = malloc(sizeof *e);
    e->key = i;
    e->next = head;
    head = e;
  }
  for (struct node *e = head; e; e = e->next)
    sum += e->key;
  printf("%ld\n", sum);
  return 0;
}
