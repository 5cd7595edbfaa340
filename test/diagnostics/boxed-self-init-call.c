// A variable of compact type in the compact heap (its address is used)
// whose initializer both names the variable and calls a function that may
// reach a safepoint: the elements would run before the object exists, so
// `&u` would name nothing.  Refused in switchable mode, with the way out;
// without the call the pointer is set before the initializer runs
// (idioms/Inputs/queue-links.c).
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next; };

static int count(int n) {
  int c = 0;
  for (int i = 0; i < n; i++) {
    struct node *x = malloc(sizeof *x);
    c += x != NULL;
    free(x);
  }
  return c;
}

int self_ring(void) {
  struct node u = { count(3), &u }; // expected-error {{'u' lives in the compact heap (its address is used as a compact pointer), and its initializer calls 'count', which may reach a safepoint; initialize it in a statement of its own}}
  return u.next->key;
}
