// A switch that became pending and never ran is reported as such by
// COMPACTPTR_STATS, with the reason: no safepoint reached since, or every
// safepoint deferred because a compact body was active on the stack.
// RUN: %clang %cflags -I%srcroot/test/runtime %s %runtime -o %t
// RUN: env COMPACTPTR_STATS=1 %t none 2>&1 | FileCheck --check-prefix=NONE %s
// RUN: env COMPACTPTR_STATS=1 %t deferred 2>&1 | FileCheck --check-prefix=DEFER %s
// NONE: compactptr: no switch happened, though one was pending for the last 3 allocations: no safepoint was reached since it became pending
// DEFER: compactptr: no switch happened, though one was pending for the last 3 allocations: 2 safepoints were deferred because a compact body was active on the stack, and no safepoint was reached outside one
#define CP_TEST_DEFINE_TYPES
#include "testtypes.h"
#include <string.h>

int main(int argc, char **argv) {
  int deferred = argc > 1 && strcmp(argv[1], "deferred") == 0;
  cp_request_switch();
  for (int i = 0; i < 3; i++)
    (void)cp_alloc(&node_desc);
  if (deferred) {
    /* What the dispatch into a compact body does around its call. */
    ++cp__compact_depth;
    cp_safepoint();
    cp_safepoint();
    --cp__compact_depth;
  }
  return cp_is_compact() ? 0 : 1;
}
