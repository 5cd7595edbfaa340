// One array larger than the whole arena: the message names its size (not
// a sentinel) and the way out, before any switch could become pending.
// RUN: %clang %cflags %s %runtime -o %t
// RUN: env COMPACTPTR_ARENA_LIMIT=1M not %t 2>&1 | FileCheck %s
// (It advised a cp_safepoint() call, which cannot make room for one run
// larger than the arena; a trial's static array of 600,000 bytes, moved
// into the heap before main, met it.)
// CHECK: compactptr: the compact arena (1048576 bytes) is smaller than the one run of 16000001 bytes this allocation needs (a large array, or a global moved into the heap before main); raise COMPACTPTR_ARENA_LIMIT
#define COMPACTPTR_RUNTIME 1
#include <compactptr.h>
CP_DEFINE_MODULE();
static const cp_field_desc_t f[] = {{"v", 0, 0, CP_FIELD_BYTES, 1, 16, 0}};
static cp_type_desc_t blob = {CP_ABI_VERSION, CP_GRANULE_SHIFT, CP_BUILD_SWITCHABLE,
                              "blob", 16, 4, 16, 4, 1, f, &cp__module, 0};
CP_REGISTER_TYPE(blob);
int main(void) {
  cp_alloc_array(&blob, 1000000);
  return 0;
}
