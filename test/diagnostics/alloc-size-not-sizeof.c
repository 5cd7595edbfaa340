// An allocation converted to a compact pointer must say what it allocates:
// sizeof(struct T) or n * sizeof(struct T), so the runtime can allocate the
// compact layout.  A fix-it writes the size through sizeof where the
// constant is a multiple of the element size (or replaces the sizeof of
// another type); -fixit applies them and the file then compiles.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: not %clang %cflags -fplugin=%plugin -fsyntax-only -fdiagnostics-parseable-fixits %s 2>&1 | FileCheck %s
// RUN: cp %s %t.c && not %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -fixit %t.c
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Werror %t.c
// RUN: FileCheck --check-prefix=FIXED %s < %t.c
// FIXED-COUNT-3: return malloc(sizeof(struct node));
// FIXED: return malloc(n * sizeof(struct node *));
// CHECK: fix-it:"{{.*}}alloc-size-not-sizeof.c":{27:17-27:19}:"sizeof(struct node)"
// CHECK: fix-it:"{{.*}}alloc-size-not-sizeof.c":{31:17-31:32}:"sizeof(struct node)"
// CHECK: fix-it:"{{.*}}alloc-size-not-sizeof.c":{35:17-35:32}:"sizeof(struct node)"
// CHECK: fix-it:"{{.*}}alloc-size-not-sizeof.c":{39:21-39:22}:"sizeof(struct node *)"
#include <compactptr.h>
#include <stdlib.h>

struct CP_COMPACT node {
  int key;
  struct node *next;
};

struct node *a(void) {
  return malloc(16); // expected-error {{allocation of compact type 'struct node' must have its size expressed as sizeof(struct node) or n * sizeof(struct node)}}
}

struct node *b(void) {
  return malloc(sizeof(int) * 4); // expected-error {{allocation of compact type 'struct node' must have its size expressed as sizeof(struct node)}}
}

struct node *c(void) {
  return malloc(sizeof(long[2])); // expected-error {{must have its size expressed as sizeof(struct node)}}
}

struct node **d(int n) {
  return malloc(n * 8); // expected-error {{allocation of an array of compact pointers must have its size expressed as n * sizeof(struct node *)}}
}

// These are fine.
struct node *e(void) { return malloc(sizeof(struct node)); }
struct node *f(struct node *p) { return p = malloc(sizeof *p); }
void *g(void) { return malloc(16); } // not converted to a compact pointer
