// Switchable mode: allocation macros that initialize what they allocate
// (`({ T *p = malloc(sizeof *p); p->key = k; p->next = NULL; p; })`), the
// usual shape in C libraries.  The statement expression's text depends on
// the layout, but the allocation is the first thing it evaluates: it goes
// first, saving the roots live across it, and the mode is tested after it.
// As a whole initializer, a new value, both arms of ?:, an arm of ?: whose
// value is stored in a field, an argument beside a compact pointer, a
// field's new value, a return value, a condition, a
// value nothing reads, written out in the function; the allocation as the
// macro's argument;
// with the variable declared before it and assigned, in the test that
// checks it, in a block of its own; with memset; with a macro that links
// the new node to a list it reads after the allocation.
// The program switches in the middle of its loop and prints what the
// native build prints.
// REQUIRES: plugin
// RUN: %clang %cflags -O2 %s -o %t.native && %t.native > %t.native.out
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=switchable %s %runtime -o %t
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.native.out -
// RUN: FileCheck %s < %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_VERIFY=1 %t | diff %t.native.out -
// RUN: env COMPACTPTR_ARENA_LIMIT=16M %t | diff %t.native.out -
// The rewrite: the allocation into a temporary, then the layout by mode.
// RUN: %rewrite --mode=switchable --main-only %s -- %cflags | FileCheck --check-prefix=REWRITE %s
// CHECK: compactptr: switch to wide mode
// CHECK-SAME: verified
// The allocations an iteration, as natively: none made twice (a macro
// under __extension__ was once printed around its own text).
// CHECK: {{^}}compactptr: node 16 24 486666 486666 486666 
// REWRITE-LABEL: static struct node *make(long k) {
// REWRITE: ({ void *cp__a{{[0-9]+}} = {{.*}}cp_is_compact() ? (({ struct node *n_ = cp__a{{[0-9]+}};
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT node {
  long key;
  struct node *next, *other;
};

#define NODE(k) __extension__({ struct node *n_ = malloc(sizeof *n_); \
  n_->key = (k); n_->next = NULL; n_->other = NULL; n_; })
#define NODE_ZEROED() __extension__({ struct node *z_ = malloc(sizeof *z_); \
  memset(z_, 0, sizeof *z_); z_; })
#define NODE_LATE(k) __extension__({ struct node *l_; \
  l_ = (struct node *)calloc(1, sizeof(struct node)); l_->key = (k); l_; })
/* The allocation in the test that checks it, and in a block of its own. */
#define NODE_CHECKED(k) __extension__({ struct node *c_; \
  if ((c_ = malloc(sizeof *c_)) == NULL) abort(); \
  c_->key = (k); c_->next = c_->other = NULL; c_; })
#define NODE_BLOCK(k) __extension__({ typedef struct node T_; T_ *b_; ; \
  { b_ = calloc(1, sizeof(T_)); } b_->key = (k); b_; })
/* The allocation handed to the macro as an argument. */
#define INIT(a, k) __extension__({ struct node *i_; i_ = (a); \
  i_->key = (k); i_->next = i_->other = NULL; i_; })
/* Reads the list after the allocation: 'head' is a root saved around it. */
#define PUSH(list, k) __extension__({ struct node *p_ = malloc(sizeof *p_); \
  p_->key = (k); p_->next = (list); p_->other = NULL; p_; })

static struct node *link2(struct node *a, struct node *b) {
  b->next = a;
  b->key += a ? a->key % 7 : 0;
  return b;
}
static struct node *make(long k) { return NODE(k); }

int main(void) {
  struct node *head = NULL, *x;
  long made = 0;
  for (int i = 0; i < 40000; i++) {
    struct node *n = NODE(i);
    n->next = head;
    head = n;
    x = (i & 1) ? NODE(2 * i) : NODE_LATE(3 * i);
    head = link2(head, x);
    head = link2(head, NODE(i % 5));
    head->other = NODE_ZEROED();
    head->other->key = i;
    head = PUSH(head, i + 1);
    head = link2(head, make(i % 3));
    if (!(x = (i & 2) ? NODE_CHECKED(-i) : NODE_BLOCK(-i)))
      return 1;
    x->next = head;
    head = x;
    /* Written out, not from a macro: 'q' is no root before it is made. */
    x = ({ struct node *q; q = malloc(sizeof *q); q->key = i % 11; q->next = head; q->other = NULL; q; });
    head = INIT(malloc(sizeof(struct node)), i % 13);
    head->next = x;
    /* In an arm of ?: beside a compact pointer: the ?: goes first. */
    head->other = (i & 4) ? NODE_ZEROED() : NULL;
    head->next->other = (i % 3) ? NODE(i) : head->other;
    /* A condition, and a value nothing reads. */
    if (({ struct node *c = malloc(sizeof *c); c->key = 1; c->next = head; c->other = NULL; head = c; c; }))
      made++;
    ({ struct node *d = malloc(sizeof *d); d->key = 2; d->next = head; d->other = NULL; head = d; d; });
    made += 10 + ((i & 4) != 0) + (i % 3 != 0);
  }
  long s = 0, o = 0, len = 0;
  for (struct node *p = head; p; p = p->next) {
    s += p->key;
    len++;
    if (p->other)
      o += p->other->key + (p->other->next == NULL);
  }
  printf("%ld %ld %ld %ld\n", s, o, len, made);
  return 0;
}
