// A compact-only build has no wide bodies, so no path may switch it:
// cp_request_switch() is refused like cp_switch_to_wide() (it used to make
// the switch pending, and the next safepoint relocated the heap under the
// program's feet).
// RUN: %clang %cflags %s %runtime -o %t
// RUN: not %t 2>&1 | FileCheck %s
// CHECK: compactptr: cp_request_switch() called in a program built compact-only
// CHECK-NOT: mode
#define COMPACTPTR_RUNTIME 1
#include <compactptr.h>
#include <stdio.h>
CP_DEFINE_MODULE();
static const cp_field_desc_t f[] = {{"v", 0, 0, CP_FIELD_BYTES, 1, 16, 0}};
static cp_type_desc_t blob = {CP_ABI_VERSION, CP_GRANULE_SHIFT, CP_BUILD_COMPACT_ONLY,
                              "blob", 16, 4, 16, 4, 1, f, &cp__module, 0};
CP_REGISTER_TYPE(blob);
int main(void) {
  int *p = cp_alloc(&blob);
  p[0] = 42;
  cp_request_switch();
  cp_safepoint();
  printf("mode %s, value %d\n", cp_is_compact() ? "compact" : "wide", p[0]);
  return 0;
}
