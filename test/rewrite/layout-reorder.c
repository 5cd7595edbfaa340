// Fields are ordered by alignment, largest first (stable), to remove
// padding: the wide layout takes 32 bytes, the compact one 8+4+4+2+1
// rounded to 24.
// RUN: %rewrite %s -- %cflags | FileCheck --match-full-lines %s
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: %clang %cflags -Wall -Werror %t.c %runtime -o %t && %t | FileCheck --check-prefix=OUT %s
#include <compactptr.h>
#include <stdio.h>

struct CP_COMPACT node {
  char c;
  double d;
  struct node *next;
  short s;
  int i;
};
// CHECK: }; struct cp__c_node { double d; cp_handle_t next; int i; short s; char c; } {{.*}}

int main(void) {
  printf("%zu\n", sizeof(struct node));
  // OUT: 24
  return 0;
}
