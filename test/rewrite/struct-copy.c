// Copies between heap objects (compact layout) and values (wide layout) go
// through the generated converters; heap-to-heap copies of the same type
// copy the compact bytes.
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %clang %cflags -Wall -Werror %t.c %runtime -o %t && %t | FileCheck --check-prefix=OUT %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next; };

static struct node get(struct node *p) { return *p; }
// CHECK: static struct node get(struct node *p) { return cp__load_node((&(*(struct cp__c_node *)(p)))); }
static int key_of(struct node v) { return v.key; }

int main(void) {
  struct node *p = malloc(sizeof *p), *q = malloc(sizeof *q);
  p->key = 7;
  p->next = q;
  struct node v = *p;
  // CHECK: struct node v = cp__load_node((&(*(struct cp__c_node *)(p))));
  v.key++;
  *q = v;
  // CHECK: cp__store_node((&(*(struct cp__c_node *)(q))), v);
  q->next = NULL;
  *p = *q;
  // CHECK: (void)((*(struct cp__c_node *)(p)) = (*(struct cp__c_node *)(q)));
  printf("%d %d %d %d\n", v.key, v.next == q, key_of(*p), get(q).next == NULL);
  // OUT: 8 1 8 1
  free(p);
  free(q);
  return 0;
}
