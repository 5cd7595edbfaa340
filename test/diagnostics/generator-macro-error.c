// A function a macro produces is spelled out in place and checked like one
// written out (test/rewrite/generator-macro.c); what is wrong in it is
// reported at the macro's invocation, in the user's text, with the
// function's own message and the name of the function it is in.
// compactptr-rewrite reports it at the same line and column, showing the
// spelled-out text it parsed.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: not %clang %cflags -fplugin=%plugin -fsyntax-only %s 2>&1 | FileCheck %s
// RUN: not %rewrite %s -- %cflags 2>&1 | FileCheck --check-prefix=TOOL %s
// CHECK: generator-macro-error.c:[[@LINE+14]]:1: error: the address of handle field 'next' is stored into global 'keep'; {{.*}} (in function 'nl_hold', which macro 'HOLDER' produces here){{$}}
// CHECK-NEXT: {{^}}   [[@LINE+13]] | HOLDER(nl, node,
// TOOL: generator-macro-error.c:[[@LINE+12]]:1: error: the address of handle field 'next' is stored into global 'keep'; {{.*}} (in function 'nl_hold', which macro 'HOLDER' produces here){{$}}
// TOOL-NEXT: {{^}}   [[@LINE+11]] | _Pragma({{.*}} static void nl_hold ( struct node * n ) { keep = & n -> next ; }
#include <compactptr.h>

struct CP_COMPACT node { int v; struct node *next; };
struct node **keep;

#define HOLDER(name, type, field)                                          \
  static void name##_hold(struct type *n) { keep = &n->field; }           \
  static struct type *name##_next(struct type *n) { return n->field; }

int before;
HOLDER(nl, node, // expected-error {{the address of handle field 'next' is stored into global 'keep'}}
       next)
int after = 1;

int main(void) {
  nl_hold(nl_next(0));
  return before + after;
}
