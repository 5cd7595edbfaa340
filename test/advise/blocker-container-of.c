// container_of (offsetof(T, f) in pointer arithmetic) and arithmetic on a
// struct pointer cast to another type assume the wide layout.  The plugin
// does not check these as such (their column is "none"); written through a
// macro, as here, the plugin rewrites the offsetof to the compact layout by
// printing the expansion.
// RUN: compactptr-advise %s -- %cflags | FileCheck %s
#include <compactptr.h>
#include <stddef.h>
#include <stdlib.h>
#ifndef MARK
#define MARK
#endif

#define container_of(p, T, f) ((T *)((char *)(p) - offsetof(T, f)))

struct link { struct link *next; };
struct MARK obj {
  int v;
  struct link link;
  struct obj *peer;
};
// CHECK: struct obj: blocked
// CHECK: blockers (1):

struct obj *make(void) { return malloc(sizeof(struct obj)); }
struct link *make_link(void) { return malloc(sizeof(struct link)); }

struct obj *from_link(struct link *l) {
  return container_of(l, struct obj, link); // expected-no-diagnostics
  // CHECK-NEXT: blocker-container-of.c:[[@LINE-1]]: offsetof(struct obj, ...) is used in pointer arithmetic (container_of); it assumes the wide layout [container-of, plugin: none]
}

// struct link is held by value in struct obj: marking struct link makes
// struct obj compact too, so the container_of blocks it as well.
// CHECK: struct link: blocked
// CHECK: blockers (2):
// CHECK-NEXT: blocker-container-of.c:[[@LINE-8]]: pointer arithmetic on a 'struct link *' cast to 'char *' assumes its wide layout [cross-type-arithmetic, plugin: none]
// CHECK-NEXT: blocker-container-of.c:[[@LINE-9]]: offsetof(struct obj, ...) {{.*}} (via struct obj)
