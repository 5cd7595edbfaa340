// Member reads decode handles, stores encode them through cp__sth (one
// evaluation of the slot), plain fields are accessed in place.
// RUN: %rewrite %s -- %cflags | FileCheck --match-full-lines %s
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: %clang %cflags -Wall -Werror %t.c %runtime -o %t && %t | FileCheck --check-prefix=OUT %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  int key;
  struct node *next;
};
// CHECK: }; struct cp__c_node { int key; cp_handle_t next; } __attribute__((aligned(CP_GRANULE > 4 ? CP_GRANULE : 4))); static cp_type_desc_t cp__desc_node; {{.*}}

int key_of(struct node *p) { return p->key; }
// CHECK: int key_of(struct node *p) { return (((struct cp__c_node *)(p))->key); }

struct node *next_of(struct node *p) { return p->next; }
// CHECK: struct node *next_of(struct node *p) { return ((struct node *)cp_decode((((struct cp__c_node *)(p))->next))); }

void set_next(struct node *p, struct node *q) { p->next = q; }
// CHECK: void set_next(struct node *p, struct node *q) { cp__sth(&(((struct cp__c_node *)(p))->next), q); }

struct node *set_get(struct node *p, struct node *q) { return p->next = q; }
// CHECK: struct node *set_get(struct node *p, struct node *q) { return ((struct node *)cp__sth(&(((struct cp__c_node *)(p))->next), q)); }

// A store whose value nothing reads, inside a comma expression (as
// initializing macros write them): no value cast, which -Wunused-value
// flags under -Wall -Werror.
struct node *init(struct node *p, struct node *q) { return (p->key = 5, p->next = q, p); }
// CHECK: struct node *init(struct node *p, struct node *q) { return ((((struct cp__c_node *)(p))->key) = 5, cp__sth(&(((struct cp__c_node *)(p))->next), q), p); }

void bump(struct node *p) { p->key += 2; p->key++; }
// CHECK: void bump(struct node *p) { (((struct cp__c_node *)(p))->key) += 2; (((struct cp__c_node *)(p))->key)++; }

int main(void) {
  struct node *a = malloc(sizeof(struct node)), *b = malloc(sizeof(struct node));
  a->key = 1;
  b->key = 2;
  set_next(a, b);
  b->next = NULL;
  bump(a);
  printf("%d %d %d\n", key_of(a), next_of(a)->key, set_get(b, a) == a);
  // OUT: 4 2 1
  printf("%d %d\n", init(b, a)->key, b->next == a);
  // OUT: 5 1
  free(a);
  free(b);
  return 0;
}
