// Arrays of compact pointers inside a compact struct are handle arrays in
// the compact layout (4 bytes per element), read and written per element.
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %clang %cflags -Wall -Werror %t.c %runtime -o %t && %t | FileCheck --check-prefix=OUT %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT tree { struct tree *kids[3]; struct tree *grid[2][2]; int id; };
// CHECK: {{.*}}}; struct cp__c_tree { cp_handle_t kids[3]; cp_handle_t grid[2][2]; int id; } {{.*}}

int main(void) {
  struct tree *t = malloc(sizeof(struct tree));
  for (int i = 0; i < 3; i++) {
    t->kids[i] = malloc(sizeof(struct tree));
    t->kids[i]->id = i * 10;
  }
  // CHECK: cp__sth_known(&((((struct cp__c_tree *)(t))->kids)[i]), cp_alloc(&cp__desc_tree));
  t->grid[1][0] = t->kids[2];
  int s = 0;
  for (int i = 0; i < 3; i++) s += t->kids[i]->id;
  printf("%d %d %zu\n", s, t->grid[1][0]->id, sizeof(struct tree));
  // OUT: 30 20 32
  for (int i = 0; i < 3; i++) free(t->kids[i]);
  free(t);
  return 0;
}
