// Pointer arithmetic on a struct pointer cast to `char *`.  By offsetof
// (container_of, here through a macro) or by sizeof it says what it
// measures, and the plugin rewrites it for each layout: no blocker.  By a
// number of bytes it is an offset in the wide layout, which the plugin
// refuses (layout-offset).  By an offset computed at run time it is a
// hazard the plugin does not check (cross-type-arithmetic).
// RUN: compactptr-advise %s -- %cflags | FileCheck %s
// (test/advise/plugin-agreement.test checks the plugin's errors below.)
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
  struct link link; // expected-warning {{embeds 'struct link', which links objects by addresses inside them}}
  struct obj *peer;
};
// CHECK: struct obj: blocked
// CHECK: blockers (2):

struct obj *make(void) { return malloc(sizeof(struct obj)); }
struct link *make_link(void) { return malloc(sizeof(struct link)); }

struct obj *from_link(struct link *l) {
  return container_of(l, struct obj, link);
}

char *past(struct obj *o) { return (char *)o + sizeof *o; }

int *value(struct obj *o) {
  return (int *)((char *)o + 8); // expected-error {{byte offset 8 in a 'struct obj' is written as a number}}
  // CHECK-NEXT: blocker-container-of.c:[[@LINE-1]]: a byte offset into a 'struct obj' is written as a number, an offset in the wide layout [layout-offset, plugin: error]
}

char *at(struct obj *o, size_t i) {
  return (char *)o + i;
  // CHECK-NEXT: blocker-container-of.c:[[@LINE-1]]: pointer arithmetic on a 'struct obj *' cast to 'char *' by an offset computed at run time assumes its wide layout [cross-type-arithmetic, plugin: none]
}

// struct link is held by value in struct obj: marking struct link makes
// struct obj compact too, so it gets struct obj's blockers as well; the
// container_of from a 'struct link *' is none.
// CHECK: struct link: blocked
// CHECK: blockers (2):
// CHECK-NEXT: {{.*}}(via struct obj)
// CHECK-NEXT: {{.*}}(via struct obj)
