// The arena fills up while a switch is pending and no safepoint is reached:
// the program stops with a message that says what happened and what to do.
// RUN: %clang %cflags -I%srcroot/test/runtime %s %runtime -o %t
// RUN: env COMPACTPTR_ARENA_LIMIT=1M not %t 2>&1 | FileCheck %s
// CHECK: compactptr: the compact arena is exhausted (1048576 bytes) while a switch to wide mode is pending: the switch became pending {{[0-9]+}} allocations ago and no safepoint was reached since; add a cp_safepoint() call
#define CP_TEST_DEFINE_TYPES
#include "testtypes.h"

int main(void) {
  for (;;)
    cp_alloc(&node_desc); /* no safepoint anywhere */
}
