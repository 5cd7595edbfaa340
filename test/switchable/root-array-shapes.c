// Root arrays in the shapes C programs write them: a table of head/tail
// pairs allocated as `struct rec *(*bucket)[2] = calloc(256, sizeof
// *bucket)` (one root array of 512 pointers, indexed bucket[d][0]), and an
// index grown with reallocarray (OpenBSD's overflow-checked realloc).  The
// switch happens while both are live; every mode prints what the native
// build prints.
// RUN: %rewrite -mode=switchable %s -- %cflags | FileCheck %s
// RUN: %clang %cflags -O1 %s -o %t.native && %t.native > %t.expected
// RUN: %clang %cflags -O1 -Wall -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %t | diff %t.expected -
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_HIGH_WATER=10 COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 %t 2>%t.stats | diff %t.expected -
// RUN: FileCheck --check-prefix=STATS %s < %t.stats
// RUN: %clang %cflags -O1 -Wall -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co && %t.co | diff %t.expected -
// RUN: %clang %cflags -O1 -Wall -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=wide %s %runtime -o %t.w && %t.w | diff %t.expected -
// STATS: compactptr: switch to wide mode (high-water mark)
#define _DEFAULT_SOURCE
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT rec {
  unsigned key;
  struct rec *next;
};

// CHECK: struct rec *(*bucket)[2] = ((void *)cp_root_array_alloc((unsigned long)(256) * 2));
// CHECK: nv = ((void *)cp_root_array_realloc((void **)(index), (unsigned long)(cap)));
int main(int argc, char **argv) {
  unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 40000, i, seed = 12345;
  struct rec *(*bucket)[2] = calloc(256, sizeof *bucket);
  struct rec **index = NULL, *r, **nv;
  size_t cap = 0;
  if (!bucket)
    return 1;
  for (i = 0; i < n; i++) {
    seed = seed * 1103515245u + 12345u;
    r = malloc(sizeof *r);
    r->key = seed >> 8;
    r->next = NULL;
    unsigned d = r->key >> 16 & 255;
    if (bucket[d][1])
      bucket[d][1]->next = r;
    else
      bucket[d][0] = r;
    bucket[d][1] = r;
    if (i == cap) {
      cap = cap ? cap * 2 : 16;
      nv = reallocarray(index, cap, sizeof *index);
      if (!nv)
        return 1;
      index = nv;
    }
    index[i] = r;
  }
  unsigned long sum = 0, count = 0, order = 0;
  for (i = 0; i < 256; i++)
    for (r = bucket[i][0]; r; r = r->next) {
      sum += r->key % 1000;
      count++;
    }
  for (i = 0; i < n; i++)
    order = order * 31 + index[i]->key % 97;
  printf("%lu %lu %lu %u\n", count, sum, order, bucket[7][1] ? bucket[7][1]->key : 0);
  free(index);
  free(bucket);
  return 0;
}
