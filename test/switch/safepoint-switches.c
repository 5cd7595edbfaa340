// A loop with a safepoint: the high-water mark makes the switch pending, the
// next safepoint runs it, and COMPACTPTR_STATS reports it.
// RUN: %clang %cflags -I%srcroot/test/runtime %s %runtime -o %t
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 %t 2>&1 | FileCheck %s
// CHECK: before: compact
// CHECK: compactptr: switch to wide mode (high-water mark) after [[N:[0-9]+]] allocations: moved [[N]] objects, {{[0-9]+}} bytes compact -> {{[0-9]+}} bytes wide, 1 roots, {{.*}} ms ({{.*}} GiB/s of compact heap; wide slabs {{.*}} ms, copy {{.*}} ms, roots {{.*}} ms, release {{.*}} ms), verified
// CHECK: after: wide sum=4999950000
// CHECK: compactptr: mode wide; arena 1024 KiB reach
// CHECK: compactptr: node 12 24 100000 100000 100000 2400000
// CHECK: compactptr: switch: [[N]] objects moved
// UNSUPPORTED: granule-3
#define CP_TEST_DEFINE_TYPES
#include "testtypes.h"
#include <stdio.h>

static void *head;

int main(void) {
  cp_root_register(&head, 1);
  printf("before: %s\n", cp_is_compact() ? "compact" : "wide");
  fflush(stdout);
  for (int i = 0; i < 100000; i++) {
    void *p = cp_alloc(&node_desc);
    NODE_KEY(p) = i;
    SET_NEXT(p, head);
    head = p;
    cp_safepoint();
  }
  long sum = 0;
  for (void *p = head; p; p = NODE_NEXT(p))
    sum += NODE_KEY(p);
  printf("after: %s sum=%ld\n", cp_is_compact() ? "compact" : "wide", sum);
  fflush(stdout);
  return 0;
}
