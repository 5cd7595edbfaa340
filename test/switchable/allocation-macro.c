// Switchable mode: an allocation macro written as a statement expression
// (`({ T *p = calloc(1, sizeof(T)); if (!p) abort(); p; })`): as a whole
// initializer, a variable's new value, a return value, an argument beside
// a compact pointer, a field's new value.  The allocation saves the roots
// live across it, the macro goes first where something around it would go
// stale, and the program switches in the middle of the loop with the
// native output.
// REQUIRES: plugin
// RUN: %clang %cflags -O2 %s -o %t.native && %t.native > %t.native.out
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=switchable %s %runtime -o %t
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.native.out -
// RUN: FileCheck %s < %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=2M COMPACTPTR_VERIFY=1 %t | diff %t.native.out -
// CHECK: compactptr: switch to wide mode
// CHECK-SAME: verified
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  long key;
  struct node *next, *other;
};

#define NEW(T) ({ T *p_ = calloc(1, sizeof(T)); if (!p_) abort(); p_; })

static struct node *link2(struct node *a, struct node *b) {
  b->next = a;
  b->key = a ? a->key + 1 : 0;
  return b;
}
static struct node *make(long k) {
  struct node *n = NEW(struct node);
  n->key = k;
  return n;
}
static struct node *make2(void) { return NEW(struct node); }

int main(void) {
  struct node *head = NULL, *x;
  for (int i = 0; i < 60000; i++) {
    x = NEW(struct node);
    x->key = i;
    x->next = head;
    head = link2(x, make(i));
    head = link2(head, make2());
    head = link2(head, NEW(struct node));
    head->other = NEW(struct node);
    head->other->key = i;
    if (i % 3)
      head->other->other = (struct node *)NEW(struct node);
  }
  long s = 0, o = 0;
  for (struct node *p = head; p; p = p->next) {
    s += p->key;
    if (p->other)
      o += p->other->key + (p->other->other != NULL);
  }
  printf("%ld %ld\n", s, o);
  return 0;
}
