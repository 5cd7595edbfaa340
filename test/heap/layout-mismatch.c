// Two translation units describe `node` with different layouts: the program
// stops at start-up, naming the type and both layouts.
// RUN: rm -rf %t && split-file %s %t
// RUN: %clang %cflags -I%srcroot/test/runtime -c %t/a.c -o %t/a.o
// RUN: %clang %cflags -c %t/b.c -o %t/b.o
// RUN: %clang %t/a.o %t/b.o %runtime -o %t/prog
// RUN: not %t/prog 2>&1 | FileCheck %s
// CHECK: compactptr: type 'node' has two different layouts in this program: {compact 12 bytes/align 4, wide 24 bytes/align 8, fields key@0/0 next@4/8 prev@8/16} and {compact 8 bytes/align 4, wide 16 bytes/align 8, fields key@0/0 next@4/8}; every translation unit must see the same definition
// UNSUPPORTED: granule-3

//--- a.c
#define CP_TEST_DEFINE_TYPES
#include "testtypes.h"
void *make_other(void);
int main(void) {
  cp_alloc(&node_desc);
  make_other();
  return 0;
}

//--- b.c
#define COMPACTPTR_RUNTIME 1
#include <compactptr.h>
CP_DEFINE_MODULE();
extern cp_type_desc_t other_node;
static const cp_field_desc_t f[] = {
    {"key", 0, 0, CP_FIELD_BYTES, 1, 4, 0},
    {"next", 4, 8, CP_FIELD_HANDLE, 1, 0, &other_node}};
cp_type_desc_t other_node = {CP_ABI_VERSION, CP_GRANULE_SHIFT, CP_BUILD_SWITCHABLE,
                             "node", 8, 4, 16, 8, 2, f, &cp__module, 0};
CP_REGISTER_TYPE(other_node);
void *make_other(void) { return cp_alloc(&other_node); }
