// A program with its own errors: the nested parse stays quiet, the outer
// compile reports each error once, and nothing is rewritten.
// REQUIRES: plugin
// RUN: not %clang %cflags -fplugin=%plugin -fsyntax-only %s 2>&1 | FileCheck %s
#include <compactptr.h>

struct CP_COMPACT node { int key; struct node *next; };

int f(struct node *p) { return p->nxt->key; }
// CHECK: errors-once.c:9:35: error: no member named 'nxt' in 'struct node'
// CHECK-NOT: error:
// CHECK: 1 error generated.
