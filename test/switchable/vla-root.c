// A variable-length array of compact pointers in a checked function cannot
// be registered in a frame: an error, with the way out.  In a dual function
// (no safepoint) it is fine, as no switch can happen while it lives.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>

struct CP_COMPACT node { int key; struct node *next; };

int first_keys(struct node *p, int n) {
  struct node *seen[n]; // no diagnostic: dual form, no safepoint
  seen[0] = p;
  return seen[0]->key;
}

int with_poll(struct node *p, int n) {
  struct node *seen[n]; // expected-error {{'seen' is a variable-length array holding compact pointers in a function that reaches a safepoint; it cannot be registered as a root}}
  seen[0] = p;
  cp_safepoint();
  return seen[0]->key;
}
