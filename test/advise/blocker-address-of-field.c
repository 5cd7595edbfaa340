// The address of a struct pointer field is a pointer to a handle slot once
// the struct it points to is compact.  The plugin follows such a pointer
// through locals and parameters; it blocks the type where the address goes
// where the plugin cannot follow it (here: returned from a function other
// translation units can call, passed to a function defined elsewhere).  The
// address of a whole array of struct pointers always blocks.  The expected
// diagnostics are what the plugin says on the same lines when the type is
// marked (plugin-agreement.test builds every blocker-*.c with
// -DMARK=CP_COMPACT).
// RUN: compactptr-advise %s -- %cflags | FileCheck %s
#include <compactptr.h>
#include <stdlib.h>
#ifndef MARK
#define MARK
#endif

struct MARK node {
  int key;
  struct node *next;
  struct node *kids[4];
};
// CHECK: struct node: blocked
// CHECK: heap-allocated and self-referential

struct node *make(void) { return malloc(sizeof(struct node)); }
void elsewhere(struct node **pp);

struct node **slot_of_next(struct node *p) {
  return &p->next; // expected-error {{the address of handle field 'next' is returned from 'slot_of_next', which other translation units can call; declare it static}}
  // CHECK: blocker-address-of-field.c:[[@LINE-1]]: the address of pointer field 'next' (a 'struct node *') is returned from 'slot_of_next', which other translation units can call [slot-escape, plugin: error]
}

void pass_kid(struct node *p, int i) {
  elsewhere(&p->kids[i]); // expected-error {{the address of handle field 'kids' is passed to 'elsewhere', which is not defined in this translation unit}}
  // CHECK: blocker-address-of-field.c:[[@LINE-1]]: the address of pointer field 'kids' (a 'struct node *') is passed to 'elsewhere', which is not defined in this translation unit [slot-escape, plugin: error]
}

struct node *(*all_kids(struct node *p))[4] {
  return &p->kids; // expected-error {{'kids' is a handle array field; its address cannot be taken}}
  // CHECK: blocker-address-of-field.c:[[@LINE-1]]: the address of pointer array field 'kids' (of 'struct node *') is taken [address-of-field, plugin: error]
}

// Not blockers: a pointer to a pointer field kept in a local and walked
// (the plugin follows it), and the address of a plain field (a native
// pointer into the object in either layout).
static void append(struct node **head, struct node *n) {
  struct node **pp = head;
  while (*pp)
    pp = &(*pp)->next;
  *pp = n;
}
// CHECK-NOT: blocker-address-of-field.c:[[@LINE-3]]
void add(struct node **head) { append(head, make()); }
int *key_of(struct node *p) { return &p->key; }
// CHECK-NOT: blocker-address-of-field.c:[[@LINE-1]]

// A queue keeps the address of its last link in a field of its own, beside
// a struct pointer: the plugin lays the queue out and the switch moves the
// address.  A struct with no struct pointer of its own does not get a
// layout from the plugin, so the address stored there blocks.
struct queue {
  struct node *head;
  struct node **tail;
};
struct holder {
  struct node **at;
};
void enqueue(struct queue *q, struct node *n) {
  *q->tail = n;
  q->tail = &n->next;
}
// CHECK-NOT: blocker-address-of-field.c:[[@LINE-2]]
void hold(struct holder *h, struct node *n) {
  h->at = &n->next; // expected-error {{the address of handle field 'next' is stored into field 'at'; a pointer to a handle field can only be kept in local variables, parameters and fields of compact structs}}
  // CHECK: blocker-address-of-field.c:[[@LINE-1]]: the address of pointer field 'next' (a 'struct node *') is stored into memory other than a local variable (or an element of a local array) or a field of a struct that holds struct pointers [slot-escape, plugin: error]
}
// Handed to a function of the file first, then stored: followed one call
// deep, as the plugin follows it.
static void keep_at(struct holder *h, struct node **where) {
  h->at = where; // expected-error {{'where', which may point at a handle field, is stored into field 'at'}}
  // CHECK: blocker-address-of-field.c:[[@LINE-1]]: 'where', which is handed the address of pointer field 'next' (a 'struct node *'), is stored into memory other than a local variable (or an element of a local array) or a field of a struct that holds struct pointers [slot-escape, plugin: error]
}
void hold_later(struct holder *h, struct node *n) { keep_at(h, &n->next); }
