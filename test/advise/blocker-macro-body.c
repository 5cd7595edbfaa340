// A use of a heap struct in a function that a macro defines blocks the
// struct: the plugin rewrites uses produced by macros by printing the
// expansion at the use site, but no statement of such a function is a
// whole expansion.  Accessor and allocation macros are fine.
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

struct node *make(void) { return malloc(sizeof(struct node)); }
int f(struct node *p) { return NEXT_KEY(p) * 2; } // printed expansion: fine
struct node *h(void) { return NEW(struct node); }  // printed expansion: fine

GETTER(second_key) // expected-error {{cannot rewrite this use of a compact type: it is produced by macro 'GETTER'}}
// CHECK-NEXT: blocker-macro-body.c:[[@LINE-1]]: a member access of 'struct node' is in a function a macro defines; the plugin cannot rewrite it (write the function outside the macro) [macro-body, plugin: error]
