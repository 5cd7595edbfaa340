// sizeof, _Alignof and offsetof of compact types (and of heap objects)
// give compact-layout values; sizeof of a wide value stays wide.
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %clang %cflags -Wall -Werror %t.c %runtime -o %t && %t | FileCheck --check-prefix=OUT %s
#include <compactptr.h>
#include <stddef.h>
#include <stdio.h>

struct CP_COMPACT node { char tag; struct node *next; long key; };

int main(void) {
  struct node v;
  printf("%zu %zu %zu\n", sizeof(struct node), _Alignof(struct node), offsetof(struct node, key));
  // CHECK: printf("%zu %zu %zu\n", sizeof(struct cp__c_node), _Alignof(struct cp__c_node), __builtin_offsetof(struct cp__c_node, key));
  printf("%zu %zu\n", sizeof v, sizeof(struct node *));
  // CHECK: printf("%zu %zu\n", sizeof v, sizeof(struct node *));
  printf("%zu\n", sizeof(struct node[3]));
  // CHECK: printf("%zu\n", ((unsigned long)3 * sizeof(struct cp__c_node)));
  // OUT: 16 8 8
  // OUT-NEXT: 24 8
  // OUT-NEXT: 48
  return 0;
}
