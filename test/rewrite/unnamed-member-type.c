// Members of unnamed type in a compact struct.  An unnamed struct that
// holds compact pointers is a compact type of its own, named after its
// member ("node__link") and spelled in C through it; an unnamed enum or a
// union of plain data keeps its type, spelled through the wide member.
// The nested compact struct's declarations come before the enclosing
// struct's, which holds it by value.
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %clang %cflags -Wall -Werror %t.c %runtime -o %t && %t | FileCheck --check-prefix=OUT %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  enum { RED, BLACK } color;
  struct { struct node *next, *prev; } link, spare[2];
  union { long n; double d; } val;
};
// CHECK: };{{.*}} struct cp__c_node__link { cp_handle_t next; cp_handle_t prev; }{{.*}} __typeof__(((struct node *)0)->link) cp__load_node__link({{.*}}struct cp__c_node { __typeof__(((struct node *)0)->color) color; struct cp__c_node__link link; struct cp__c_node__link spare[2]; __typeof__(((struct node *)0)->val) val; }{{.*}}

int main(void) {
  struct node *a = malloc(sizeof *a), *b = malloc(sizeof *b);
  a->color = BLACK;
  a->link.next = b;
  // CHECK: cp__sth_known(&((((struct cp__c_node *)(a))->link).next), b);
  a->spare[1].prev = a;
  b->val.d = 2.5;
  b->link.next = NULL;
  printf("%d %d %d %.1f %d\n", a->color == BLACK, a->link.next == b,
         a->spare[1].prev == a, a->link.next->val.d, b->link.next == NULL);
  // OUT: 1 1 1 2.5 1
  free(a); free(b);
  return 0;
}
