// An access to a heap struct produced inside a macro body blocks the
// struct: the plugin rewrites accesses in place and cannot edit a macro
// body.  Accesses in macro arguments are fine.
// RUN: compactptr-advise %s -- %cflags | FileCheck %s
#include <compactptr.h>
#include <stdlib.h>
#ifndef MARK
#define MARK
#endif

struct MARK node {
  int key;
  struct node *next;
};
// CHECK: struct node: blocked
// CHECK: allocation sites (2):
// CHECK: blockers (2):

#define NEXT_KEY(p) ((p)->next->key + 1)
#define TWICE(x) ((x) * 2)

struct node *make(void) { return malloc(sizeof(struct node)); }

int f(struct node *p) {
  return NEXT_KEY(p) * 2; // expected-error {{cannot rewrite this use of a compact type: it is produced by macro 'NEXT_KEY'}}
  // CHECK-NEXT: blocker-macro-body.c:[[@LINE-1]]: a member access of 'struct node' is produced inside a macro body; the plugin cannot rewrite it there (write it outside the macro or make the macro a function) [macro-body, plugin: error]
}

int g(struct node *p) { return TWICE(p->key); } // macro argument: fine

// An allocation macro: sizeof(T) is recognised inside it (the site counts),
// but the call is in the macro body.
#define NEW(T) ((T *)malloc(sizeof(T)))
struct node *h(void) { return NEW(struct node); } // expected-error {{cannot rewrite this use of a compact type: it is produced by macro 'NEW'}}
// CHECK-NEXT: blocker-macro-body.c:[[@LINE-1]]: an allocation of 'struct node' is produced inside a macro body; {{.*}} [macro-body, plugin: error]
