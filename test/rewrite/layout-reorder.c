// Fields are placed first fit in declaration order: each at the lowest
// offset aligned for it where it fits, in a hole an earlier field left or
// at the end.  Here `next` and `s` fill the hole after `c`: the wide
// layout takes 32 bytes, the compact one c@0 s@2 next@4 d@8 i@16, 24.
// A field's offset depends only on the fields before it, so two structs
// with the same first fields place them alike (`struct derived`).
// RUN: %rewrite %s -- %cflags | FileCheck --match-full-lines %s
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: %clang %cflags -Wall -Werror %t.c %runtime -o %t && %t | FileCheck --check-prefix=OUT %s
#include <compactptr.h>
#include <stddef.h>
#include <stdio.h>

struct CP_COMPACT node {
  char c;
  double d;
  struct node *next;
  short s;
  int i;
};
// CHECK: }; struct cp__c_node { char c; short s; cp_handle_t next; double d; int i; } {{.*}}

struct CP_COMPACT derived {
  char c;
  double d;
  struct node *next;
  short s;
  int i;
  char more[3];
  double extra;
};
// CHECK: }; struct cp__c_derived { char c; short s; cp_handle_t next; double d; int i; char more[3]; double extra; } {{.*}}

int main(void) {
  printf("%zu %zu\n", sizeof(struct node), offsetof(struct derived, extra));
  // OUT: 24 24
  return 0;
}
