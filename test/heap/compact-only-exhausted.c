// A compact-only build cannot switch: exhaustion is a clean fatal error.
// RUN: %clang %cflags %s %runtime -o %t
// RUN: env COMPACTPTR_ARENA_LIMIT=256K not %t 2>&1 | FileCheck %s
// CHECK: compactptr: the compact arena is exhausted: {{[0-9]+}} bytes in use of 262144 (it needed a new run of {{[0-9]+}} bytes); this program was built compact-only, so it cannot switch to wide mode
#define COMPACTPTR_RUNTIME 1
#include <compactptr.h>
CP_DEFINE_MODULE();
static const cp_field_desc_t f[] = {{"v", 0, 0, CP_FIELD_BYTES, 1, 16, 0}};
static cp_type_desc_t blob = {CP_ABI_VERSION, CP_GRANULE_SHIFT, CP_BUILD_COMPACT_ONLY,
                              "blob", 16, 4, 16, 4, 1, f, &cp__module, 0};
CP_REGISTER_TYPE(blob);
int main(void) {
  for (;;) {
    cp_alloc(&blob);
    cp_safepoint();
  }
}
