// A `struct node **` that may point at a handle field loads and stores
// through cp__slot_load / cp__slot_store, which pick the slot's width by
// its address (inside the compact arena: a 4-byte handle; elsewhere an
// 8-byte native slot).  One that only ever points at native slots keeps
// plain loads and stores.  In a checked function the slot pointer is a
// frame root (type 0: it may point into an object of any type), so the
// switch moves it with the field it points at.
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %clang %cflags -Wall -Wextra -Werror %t.c %runtime -o %t && %t | FileCheck --check-prefix=OUT %s
// RUN: %rewrite --main-only -mode=switchable %s -- %cflags | FileCheck --check-prefix=SW %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next; };

static void push_sorted(struct node **head, struct node *n) {
  struct node **pp = head;
  while (*pp && (*pp)->key < n->key)
    pp = &(*pp)->next;
  n->next = *pp;
  *pp = n;
}
// CHECK:      static void push_sorted(struct node **head, struct node *n) {
// CHECK-NEXT:   struct node **pp = head;
// CHECK-NEXT:   while ((((struct node *)cp__slot_load(pp)) && (((struct cp__c_node *)(((struct node *)cp__slot_load(pp))))->key) < (((struct cp__c_node *)(n))->key)))
// CHECK-NEXT:     pp = ((struct node **)cp__handle_slot((&(((struct cp__c_node *)(((struct node *)cp__slot_load(pp))))->next)), &cp__desc_node));
// CHECK-NEXT:   cp__sth(&(((struct cp__c_node *)(n))->next), ((struct node *)cp__slot_load(pp)));
// CHECK-NEXT:   cp__slot_store(pp, n);
// CHECK-NEXT: }

// Only native slots: plain code.
static struct node *pop(struct node **head) {
  struct node *n = *head;
  *head = n->next;
  return n;
}
// CHECK:      static struct node *pop(struct node **head) {
// CHECK-NEXT:   struct node *n = *head;
// CHECK-NEXT:   *head = ((struct node *)cp_decode((((struct cp__c_node *)(n))->next)));
// CHECK-NEXT:   return n;
// CHECK-NEXT: }

// SW: static void step(struct node **pp) { cp_root_desc_t cp__rt1[1]; {{.*}} = (cp__root(&cp__rt1[0], (void *)&pp, CP_ROOT_POINTER, 1, 0, "pp"), cp__frame(&cp__fr1, 1, cp__rt1));
static void step(struct node **pp) {
  cp_safepoint();
  printf("%d\n", (*pp)->key);
}

int main(void) {
  struct node *head = NULL;
  int keys[] = {5, 1, 4, 2, 3};
  for (int i = 0; i < 5; i++) {
    struct node *n = malloc(sizeof *n);
    n->key = keys[i];
    push_sorted(&head, n);
  }
  step(&head->next);
  // OUT: 2
  while (head) {
    struct node *n = pop(&head);
    printf("%d ", n->key);
    free(n);
  }
  printf("\n");
  // OUT-NEXT: 1 2 3 4 5
  return 0;
}
