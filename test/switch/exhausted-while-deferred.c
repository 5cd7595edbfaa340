// The arena fills up while a switch is pending and every safepoint reached
// is deferred, because a compact body is active on the stack (a walk in
// compact layout whose callback allocates): the message says so, and what
// to do, instead of asking for a cp_safepoint() call that would not help.
// RUN: %clang %cflags -I%srcroot/test/runtime %s %runtime -o %t
// RUN: env COMPACTPTR_ARENA_LIMIT=1M not %t 2>&1 | FileCheck %s
// CHECK: compactptr: the compact arena is exhausted (1048576 bytes) while a switch to wide mode is pending: the switch became pending {{[0-9]+}} allocations ago, and the {{[1-9][0-9]*}} safepoints reached since were deferred because a compact body was active on the stack {{.*}}declare that function CP_SAFEPOINT
#define CP_TEST_DEFINE_TYPES
#include "testtypes.h"

int main(void) {
  cp_compact_enter(); /* as a dual function's dispatch does */
  for (;;) {
    cp_alloc(&node_desc);
    cp_safepoint(); /* deferred: a compact body is active */
  }
}
