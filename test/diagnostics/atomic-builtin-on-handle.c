// GCC's atomic builtins on a handle field: in compact layout the field is
// a 32-bit handle, and the builtin loaded, compared or stored 8 bytes of
// pointer there (a lock-free push onto `b->head` linked to libatomic and
// stopped at the encode check, or overwrote the next field).  Refused in
// every mode, named as written (with the struct that holds the field where
// it is compact by inference); a lock-free head in a global (a root,
// whose pointer stays native) is fine.
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=wide -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <stdatomic.h>

struct CP_COMPACT node {
  struct node *next;
  int v;
};
struct CP_COMPACT bucket {
  struct node *head;
  int pushes;
};

static struct node *top; /* a root */

void push(struct bucket *b, struct node *n) {
  struct node *old = __atomic_load_n(&b->head, __ATOMIC_ACQUIRE); // expected-error {{'__atomic_load_n' on handle field 'head': in compact layout the field is a 32-bit handle, not a pointer, so the builtin cannot load, compare or store it}}
  do
    n->next = old;
  while (!__atomic_compare_exchange_n(&b->head, &old, n, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED)); // expected-error {{'__atomic_compare_exchange_n' on handle field 'head'}}
  __atomic_fetch_add(&b->pushes, 1, __ATOMIC_RELAXED);
  __atomic_store_n(&n->next, (struct node *)0, __ATOMIC_RELEASE); // expected-error {{'__atomic_store_n' on handle field 'next'}}
}

struct node *steal(struct bucket *b) {
  if (__sync_bool_compare_and_swap(&b->head, (struct node *)0, (struct node *)0)) // expected-error {{'__sync_bool_compare_and_swap' on handle field 'head'}}
    return 0;
  return __atomic_exchange_n(&b->head, (struct node *)0, __ATOMIC_ACQ_REL); // expected-error {{'__atomic_exchange_n' on handle field 'head'}}
}

// A struct never annotated that holds a compact pointer is compact by
// inference: the message says so, or the user looks for CP_COMPACT on it.
struct stack {
  struct node *top;
};
struct node *peek(struct stack *s) {
  return __atomic_load_n(&s->top, __ATOMIC_ACQUIRE); // expected-error {{'__atomic_load_n' on handle field 'top' of 'struct stack' (compact by inference: it holds a pointer to a compact type): in compact layout}}
}

void push_root(struct node *n) {
  struct node *old = __atomic_load_n(&top, __ATOMIC_ACQUIRE);
  do
    n->next = old;
  while (!__atomic_compare_exchange_n(&top, &old, n, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

// Through a local that holds the field's address (a slot pointer, whose
// loads and stores pick the width by address): the builtin would still
// move a whole pointer.
void push_through_slot(struct bucket *b, struct node *n) {
  struct node **slot = &b->head;
  n->next = *slot;
  __atomic_store_n(slot, n, __ATOMIC_RELEASE); // expected-error {{'slot', which may point at a handle field, is handed to an atomic builtin, which would load, compare or store a whole pointer where the slot holds a 32-bit handle}}
}

// The head in a root, but the expected value of the compare-exchange is
// the new node's link field: the builtin writes a whole pointer back into
// the 4-byte handle when it fails (single-threaded, the next object's
// first field read 0).  C11's form too.
static _Atomic(struct node *) c11_top;
void push_expected_in_field(struct node *n) {
  n->next = atomic_load(&c11_top);
  while (!atomic_compare_exchange_weak(&c11_top, &n->next, n)); // expected-error {{given the address of handle field 'next': in compact layout the field is a 32-bit handle, not a pointer, so the builtin cannot read or write a pointer there; pass the address of a local pointer}}
  while (!__atomic_compare_exchange_n(&top, &n->next, n, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED)); // expected-error {{'__atomic_compare_exchange_n' given the address of handle field 'next'}}
  struct node **expected = &n->next;
  while (!__atomic_compare_exchange_n(&top, expected, n, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED)); // expected-error {{'expected', which may point at a handle field, is handed to an atomic builtin}}
}
