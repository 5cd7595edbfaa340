// A use of a heap struct in a function that a macro defines with a
// _Pragma in it blocks the struct: the plugin rewrites uses produced by
// macros by printing the expansion at the use site, and spells a macro
// that defines a whole function out in place, except one whose _Pragma
// would be lost.  Accessor, allocation and other generator macros are
// fine.
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
// CHECK: blockers (1):

static struct node *head;

#define NEXT_KEY(p) ((p)->next->key + 1)
#define NEW(T) ((T *)malloc(sizeof(T)))
#define GETTER(name) int name(void) { return head->next->key; }
#define SUMMER(name) int name(void) { int s = 0; struct node *p; \
    _Pragma("clang loop unroll(disable)") for (p = head; p; p = p->next) s++; return s; }

struct node *make(void) { return malloc(sizeof(struct node)); }
int f(struct node *p) { return NEXT_KEY(p) * 2; } // printed expansion: fine
struct node *h(void) { return NEW(struct node); }  // printed expansion: fine

GETTER(second_key) // spelled out in place: fine
SUMMER(count) // expected-error {{cannot rewrite this use of a compact type: it is produced by macro 'SUMMER'}}
// CHECK-NEXT: blocker-macro-body.c:[[@LINE-1]]: a member access of 'struct node' is in a function a macro defines with a _Pragma or __COUNTER__ in it; the plugin cannot rewrite it (write the function outside the macro) [macro-body, plugin: error]
