// Switchable mode: an allocation macro written as a statement expression
// (`({ T *p = calloc(1, sizeof(T)); if (!p) abort(); p; })`) whose value is
// a whole initializer, assignment to a variable, or return value: the
// allocation saves the roots live across it, and the program switches in
// the middle of the loop with the native output.
// REQUIRES: plugin
// RUN: %clang %cflags -O2 %s -o %t.native && %t.native > %t.native.out
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=switchable %s %runtime -o %t
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.native.out -
// RUN: FileCheck %s < %t.err
// CHECK: compactptr: switch to wide mode
// CHECK-SAME: verified
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
struct CP_COMPACT node { long key; struct node *next; };
#define NEW(T) ({ T *p_ = calloc(1, sizeof(T)); if (!p_) abort(); p_; })
static struct node *link2(struct node *a, struct node *b) { b->next = a; return b; }
static struct node *make(long k) { struct node *n = NEW(struct node); n->key = k; return n; }
static struct node *make2(void) { return NEW(struct node); }
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100000;
  struct node *head = NULL, *x;
  for (int i = 0; i < n; i++) {
    x = NEW(struct node);
    x->key = i; x->next = head; head = x;
    head = link2(head, make(i));
    head = link2(head, make2());
    head = (struct node *)NEW(struct node);
    head->next = x;
  }
  long s = 0;
  for (struct node *p = head; p; p = p->next) s += p->key;
  printf("%ld\n", s);
  return 0;
}
