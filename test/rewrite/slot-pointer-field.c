// A `struct node **` field of a compact struct (a queue's tail beside its
// head) may keep the address of a handle field: the descriptor lists it as
// CP_FIELD_SLOT (8 bytes in both layouts; the switch moves an address
// inside the arena with the field it names) and says how this translation
// unit reads it: HANDLES where a handle field's address is stored into it
// (loads and stores through it check the address, as for a slot-pointer
// local), NATIVE where it is read as a plain pointer (plain loads), NONE
// where it is not read.  The runtime stops a program whose units disagree
// (test/runtime/descriptor_test.c).  A field of a struct the plugin does
// not lay out cannot keep one (diagnostics/slot-pointer-escape.c).
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: FileCheck %s < %t.c
// RUN: %clang %cflags -Wall -Wextra -Werror %t.c %runtime -o %t && %t | FileCheck --check-prefix=OUT %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next; };
struct queue {
  struct node *head;
  struct node **tail;   // the last link: &head, then &last->next
  struct node **spare;  // never read here
  struct node **cursor; // a native slot only: a local array's element
};
// CHECK: {{^}}}; struct cp__c_queue { cp_handle_t head; struct node **tail; struct node **spare; struct node **cursor; }

static void push(struct queue *q, struct node *n) {
  n->next = NULL;
  *q->tail = n;
  q->tail = &n->next;
}
// CHECK-LABEL: {{^}}static void push(
// CHECK: {{^}}  cp__slot_store((((struct cp__c_queue *)(q))->tail), n);
// CHECK-NEXT: {{^}}  (((struct cp__c_queue *)(q))->tail) = ((struct node **)cp__handle_slot((&(((struct cp__c_node *)(n))->next)), &cp__desc_node));

static struct node *first(struct queue *q) { return *q->cursor; }
// CHECK: {{^}}static struct node *first(struct queue *q) { return *(((struct cp__c_queue *)(q))->cursor); }

int main(void) {
  struct node *roots[2] = {0, 0};
  struct queue *q = malloc(sizeof *q);
  q->head = NULL;
  q->tail = &q->head;
  q->spare = NULL;
  q->cursor = roots;
  for (int i = 0; i < 3; i++) {
    struct node *n = malloc(sizeof *n);
    n->key = i;
    push(q, n);
  }
  roots[0] = q->head;
  printf("%d %d\n", first(q)->key, q->head->next->next->key);
  return 0;
}
// OUT: 0 2

// CHECK-LABEL: {{^}}static const cp_field_desc_t cp__fields_queue[] = {
// CHECK: {{^}}  {"tail", __builtin_offsetof(struct cp__c_queue, tail), __builtin_offsetof(struct queue, tail), CP_FIELD_SLOT, 1, CP_SLOT_USE_HANDLES, 0},
// CHECK-NEXT: {{^}}  {"spare", __builtin_offsetof(struct cp__c_queue, spare), __builtin_offsetof(struct queue, spare), CP_FIELD_SLOT, 1, CP_SLOT_USE_NONE, 0},
// CHECK-NEXT: {{^}}  {"cursor", __builtin_offsetof(struct cp__c_queue, cursor), __builtin_offsetof(struct queue, cursor), CP_FIELD_SLOT, 1, CP_SLOT_USE_NATIVE, 0},
