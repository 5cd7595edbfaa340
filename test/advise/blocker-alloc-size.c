// An allocation converted to a struct pointer must give its size as
// sizeof(T) or n * sizeof(T) (sizeof *p counts): the runtime allocates the
// compact layout, so it has to know the type.  Such a site still counts as
// an allocation site.
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
// CHECK: allocation sites (4):

struct node *a(void) {
  return malloc(16); // expected-error {{allocation of compact type 'struct node' must have its size expressed as sizeof(struct node) or n * sizeof(struct node)}}
  // CHECK-DAG: blocker-alloc-size.c:[[@LINE-1]]: malloc for 'struct node' does not give its size as sizeof(struct node) or n * sizeof(struct node) [alloc-size, plugin: error]
}

struct node *b(int n) {
  return calloc(n, 16); // expected-error {{allocation of compact type 'struct node' must have its size expressed}}
  // CHECK-DAG: blocker-alloc-size.c:[[@LINE-1]]: calloc for 'struct node' does not give its size {{.*}}[alloc-size, plugin: error]
}

// A root array (an array of struct pointers) must say what it holds too.
struct node **roots(int n) {
  return malloc(n * 8); // expected-error {{allocation of an array of compact pointers must have its size expressed as n * sizeof(struct node *)}}
  // CHECK-DAG: blocker-alloc-size.c:[[@LINE-1]]: malloc for an array of 'struct node *' does not give its size as n * sizeof(struct node *) [alloc-size, plugin: error]
}

// These are fine.
struct node **roots_ok(int n) { return malloc(n * sizeof(struct node *)); }
struct node *e(void) { return malloc(sizeof(struct node)); }
struct node *f(struct node *p, int n) { return p = realloc(p, n * sizeof *p); }
void *g(void) { return malloc(16); } // not converted to a struct pointer
// CHECK-NOT: blocker-alloc-size.c:[[@LINE-3]]
// CHECK-NOT: blocker-alloc-size.c:[[@LINE-3]]
