// Compact types and static inline functions in a header: the header is
// rewritten too (printed after the main file), and the descriptors go into
// the main file.
// RUN: %rewrite %s -- %cflags -I%inputs/plugin | FileCheck --match-full-lines %s
// RUN: rm -rf %t.d && %rewrite -o %t.d %s %inputs/plugin/list-ops.c -- %cflags -I%inputs/plugin
// RUN: %clang %cflags -Wall -Werror -I%t.d %t.d/header-types.c %t.d/list-ops.c %runtime -o %t && %t | FileCheck --check-prefix=OUT %s
#include "list.h"
#include <stdio.h>

int main(void) {
  struct item *l = NULL;
  for (int i = 1; i <= 4; i++)
    l = item_push(l, i);
  printf("%ld\n", item_sum(l));
  // OUT: 10
  item_free(l);
  return 0;
}
// CHECK: // ===== compactptr: {{.*}}header-types.c =====
// CHECK: CP_REGISTER_TYPE(cp__desc_item);
// CHECK: // ===== compactptr: {{.*}}list.h =====
// CHECK: #line 1 "{{.*}}list.h"
// CHECK: }; struct cp__c_item { int v; cp_handle_t next; } {{.*}}
// CHECK: struct item *it = cp_alloc(&cp__desc_item);
