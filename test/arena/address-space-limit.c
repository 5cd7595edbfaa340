// Under an address-space limit (prlimit --as, ulimit -v) the compact arena
// takes at most a fifth of the address space free at start-up: the arena
// shrinks and the switch comes earlier, and the wide heap gets room beside
// it.  A compact-only build stops with one line naming the limit, and its
// advice is to raise that limit (COMPACTPTR_ARENA_LIMIT would not help).
// REQUIRES: plugin
// RUN: %clang %cflags -O2 %s -o %t.native && %t.native 4000000 > %t.expected
// RUN: %clang %cflags -O2 -fplugin=%plugin %s %runtime -o %t.sw
// With room to spare: compact mode throughout.
// RUN: env COMPACTPTR_STATS=1 prlimit --as=1073741824 %t.sw 4000000 > %t.out 2> %t.stats
// RUN: diff %t.expected %t.out
// RUN: FileCheck --check-prefix=ROOM %s < %t.stats
// ROOM: (the address-space limit RLIMIT_AS of 1073741824 bytes shrank the arena from {{[0-9]+}} bytes: a fifth of the {{[0-9]+}} bytes free at start-up)
// ROOM: compactptr: no switch happened
// A smaller limit: the arena is about 25 MiB, the list needs 32 MiB.
// RUN: env COMPACTPTR_STATS=1 prlimit --as=134217728 %t.sw 4000000 > %t.out 2> %t.stats
// RUN: diff %t.expected %t.out
// RUN: FileCheck --check-prefix=EARLY %s < %t.stats
// EARLY: compactptr: switch to wide mode (high-water mark)
// EARLY: compactptr: mode wide
// EARLY: (the address-space limit RLIMIT_AS of 134217728 bytes shrank the arena
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co
// RUN: not prlimit --as=134217728 %t.co 4000000 2>&1 | FileCheck --check-prefix=CO %s
// CO: compactptr: the compact arena is exhausted: {{[0-9]+}} bytes in use of {{[0-9]+}} (the address-space limit RLIMIT_AS of 134217728 bytes shrank the arena from {{[0-9]+}} bytes: a fifth of the {{[0-9]+}} bytes free at start-up) (it needed a new run of {{[0-9]+}} bytes); this program was built compact-only, so it cannot switch to wide mode (rebuild with -fplugin-arg-compactptr-mode=switchable or raise the address-space limit (ulimit -v, prlimit --as)){{$}}
// RUN: env COMPACTPTR_ARENA_LIMIT=4M not %t.co 4000000 2>&1 | FileCheck --check-prefix=KNOB %s
// KNOB: this program was built compact-only, so it cannot switch to wide mode (rebuild with -fplugin-arg-compactptr-mode=switchable or raise COMPACTPTR_ARENA_LIMIT){{$}}
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  int key;
  struct node *next;
};

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000, sum = 0;
  struct node *head = NULL;
  for (long i = 0; i < n; i++) {
    struct node *e = malloc(sizeof *e);
    e->key = (int)(i % 1000);
    e->next = head;
    head = e;
  }
  for (struct node *e = head; e; e = e->next)
    sum += e->key;
  printf("%ld nodes, sum %ld\n", n, sum);
  return 0;
}
