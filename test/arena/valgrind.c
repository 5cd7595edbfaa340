// valgrind (callgrind, for instruction counts) runs plugin-built programs
// through the switch: its address-space manager refuses the low range (the
// arena is based) and the default 1 TiB wide reservation (the runtime
// halves it until one fits).
// REQUIRES: plugin, valgrind
// RUN: %clang %cflags -O2 %s -o %t.native && %t.native > %t.expected
// RUN: %clang %cflags -O2 -fplugin=%plugin %s %runtime -o %t.sw
// RUN: env COMPACTPTR_STATS=1 COMPACTPTR_ARENA_LIMIT=1M valgrind -q --tool=callgrind --callgrind-out-file=%t.cg %t.sw > %t.out 2> %t.stats
// RUN: diff %t.expected %t.out
// RUN: FileCheck %s < %t.stats
// CHECK: compactptr: switch to wide mode (high-water mark)
// CHECK: compactptr: mode wide
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  int key;
  struct node *next;
};

int main(void) {
  long sum = 0;
  struct node *head = NULL;
  for (long i = 0; i < 200000; i++) {
    struct node *e = malloc(sizeof *e);
    e->key = (int)(i % 1000);
    e->next = head;
    head = e;
  }
  for (struct node *e = head; e; e = e->next)
    sum += e->key;
  printf("sum %ld\n", sum);
  return 0;
}
