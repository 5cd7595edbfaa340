// In a checked function, an expression that uses a compact layout after a
// call that may reach a safepoint cannot pick its layout once: it is an
// error (store the call's result in a local first).  A plain store
// `p->next = g()` is rewritten (the call runs first), and layout uses in
// the call's own arguments are fine: they run before the call.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>

struct CP_COMPACT node { int key; struct node *next; };

CP_SAFEPOINT struct node *elsewhere(struct node *p);

long sum(struct node *p) {
  long total = 0;
  p->next = elsewhere(p->next);        // rewritten: the call runs first
  total += elsewhere(p)->key;          // expected-error {{this expression uses a compact layout and calls 'elsewhere', which may reach a safepoint (the switch can happen in the middle of it); store the call's result in a local first}}
  total += p->key + (elsewhere(p) != 0); // expected-error {{calls 'elsewhere', which may reach a safepoint}}
  return total;
}
