// All errors of a file come in one run: the safety gate's and the
// rewrite's, each construct once, though switchable mode prints a dual
// function in two bodies.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify %s
// RUN: not %clang %cflags -fplugin=%plugin -fsyntax-only %s 2>&1 | FileCheck %s
#include <compactptr.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next; };

struct node **slot(struct node *p) {
  return &p->next; // expected-error {{the address of handle field 'next' is returned from 'slot', which other translation units can call}}
}

struct node *make(void) {
  return malloc(12); // expected-error {{allocation of compact type 'struct node' must have its size expressed as sizeof(struct node)}}
}

struct node **kept;
int keys(struct node *p) {
  kept = &p->next; // expected-error {{the address of handle field 'next' is stored into global 'kept'}}
  return p->key + (*kept)->key + (malloc(3) == 0); // (not converted: no error)
}
// CHECK-COUNT-3: error:
// CHECK-NOT: error:
// CHECK: 3 errors generated.
