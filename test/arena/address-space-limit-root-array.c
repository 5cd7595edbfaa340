// Under an address-space limit the region for root arrays takes at most a
// quarter of what is free, so a program with one small bucket table still
// has room for the wide heap at its switch (the region once took two
// thirds of it, and this program stopped at the switch under a limit it
// ran under natively).  And a mapping refused under a limit too small for
// the runtime at all says so, naming the limit, in one line.
// REQUIRES: plugin
// RUN: %clang %cflags -O2 %s -o %t.native && %t.native 5000000 > %t.expected
// RUN: %clang %cflags -O2 -fplugin=%plugin %s %runtime -o %t.sw
// RUN: env COMPACTPTR_STATS=1 prlimit --as=314572800 %t.sw 5000000 > %t.out 2> %t.stats
// RUN: diff %t.expected %t.out
// RUN: FileCheck --check-prefix=SWITCHED %s < %t.stats
// SWITCHED: compactptr: switch to wide mode (high-water mark)
// SWITCHED: compactptr: mode wide
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=wide %s %runtime -o %t.wide
// RUN: prlimit --as=268435456 %t.wide 5000000 > %t.out
// RUN: diff %t.expected %t.out
// A bucket table of 8M pointers (64 MiB) fits under 1 GiB; one of 32M
// (256 MiB) does not, and the message says why.
// RUN: prlimit --as=1073741824 %t.sw 1000 8388608 > %t.out
// RUN: %t.native 1000 8388608 | diff - %t.out
// RUN: not prlimit --as=1073741824 %t.sw 1000 33554432 2>&1 | FileCheck --check-prefix=BIG %s
// BIG: compactptr: out of memory for a root array of 33554432 pointers: the region for root arrays and pinned objects, {{[0-9]+}} bytes of address space (a quarter of what was free under the address-space limit when the first one was made), is full: under the address-space limit RLIMIT_AS (ulimit -v) of 1073741824 bytes, {{[0-9]+}} of them free; raise it{{$}}
// Far too small: whichever mapping fails first names the limit.
// RUN: not prlimit --as=4194304 %t.sw 1000 2>&1 | FileCheck --check-prefix=TINY %s
// TINY: compactptr: {{.*}}: under the address-space limit RLIMIT_AS (ulimit -v) of 4194304 bytes, {{[0-9]+}} of them free; raise it{{$}}
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT entry {
  unsigned key, val;
  struct entry *next;
};

int main(int argc, char **argv) {
  unsigned long n = argc > 1 ? strtoul(argv[1], 0, 10) : 1000, sum = 0;
  unsigned long nb = argc > 2 ? strtoul(argv[2], 0, 10) : 1024;
  struct entry **bucket = calloc(nb, sizeof(struct entry *)); /* a root array */
  if (!bucket)
    return 2;
  for (unsigned long i = 0; i < n; i++) {
    struct entry *e = malloc(sizeof *e);
    if (!e)
      return 2;
    e->key = (unsigned)(i * 2654435761u);
    e->val = (unsigned)i;
    e->next = bucket[e->key % nb];
    bucket[e->key % nb] = e;
  }
  for (unsigned long i = 0; i < nb; i++)
    for (struct entry *e = bucket[i]; e; e = e->next)
      sum += e->val;
  printf("%lu entries, sum %lu\n", n, sum);
  return 0;
}
