// A statement macro's `do { } while (0)` in a run of statements that is
// versioned by mode (`heads = calloc(...); STMT(tails = calloc(...););`)
// runs once and is never polled: the function's frame of slots goes in
// front of the loop that first saves a root, not inside the versioned run
// (it was put at the macro, as if the macro were a polled loop, and the
// two rewrites of that code conflicted: "conflicting rewrites of the same
// code").  Runs with a switch forced while the loop allocates.
// RUN: %rewrite -mode=switchable %s -- %cflags | FileCheck %s
// RUN: %clang %cflags -O1 %s -o %t.native && %t.native > %t.expected
// RUN: %clang %cflags -O1 -Wall -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %t | diff %t.expected -
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_HIGH_WATER=10 COMPACTPTR_STATS=1 %t 2>%t.stats | diff %t.expected -
// RUN: FileCheck --check-prefix=STATS %s < %t.stats
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_HIGH_WATER=10 COMPACTPTR_VERIFY=1 %t | diff %t.expected -
// STATS: compactptr: switch to wide mode (high-water mark) after {{[0-9]+}} allocations: moved {{[0-9]+}} objects
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

#define STMT(...) do { __VA_ARGS__ } while (0)

struct CP_COMPACT cell { unsigned k; struct cell *next; };

static struct cell **heads, **tails;

static struct cell *new_cell(unsigned k) {
  struct cell *c = malloc(sizeof *c);
  c->k = k;
  c->next = NULL;
  return c;
}

// CHECK-LABEL: int main(void) {
// CHECK: {{^}}  { if (cp_is_compact()) {{.*}} heads = {{.*}}cp_root_array_alloc
// CHECK: {{^}}  STMT(tails = {{.*}}cp_root_array_alloc{{.*}} } }
// CHECK-NEXT: {{^}}  { struct cp__slotframe_s {{.*}} for (unsigned i = 0; i < 20000u; i++) {
int main(void) {
  struct cell *c, *last = NULL;
  unsigned long sum = 0;
  heads = calloc(8, sizeof(struct cell *));
  STMT(tails = calloc(8, sizeof(struct cell *)););
  for (unsigned i = 0; i < 20000u; i++) {
    c = new_cell(i);
    if (last)
      last->next = c;
    last = c;
    if (!heads[i % 8])
      heads[i % 8] = c;
    tails[i % 8] = c;
  }
  for (unsigned j = 0; j < 8; j++)
    for (c = heads[j]; c; c = c->next)
      sum += c->k * (j + 1);
  printf("%lu %u %u\n", sum, tails[3]->k, last->k);
  free(heads);
  free(tails);
  return 0;
}
