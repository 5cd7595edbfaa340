// A variable of compact type whose address is used as a compact pointer
// lives in the compact heap (allocated before main or at its first use,
// for one with static storage), so no static initializer can hold its
// address: a file-scope pointer's initializer moves to a constructor
// (rewrite/pointer-init-at-run-time.c); anything else is refused.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>

struct CP_COMPACT node { int key; struct node *next; };

static struct node sentinel = {0, &sentinel}; // its own address: fine (stored at its first use)
#define NIL (&sentinel)

static struct node *first = NIL; // a pointer: set by a constructor
static void *anchor = NIL; // expected-error {{so the static initializer of 'anchor' cannot refer to it}}
static struct node *const fixed = NIL; // expected-error {{so the static initializer of 'fixed' cannot refer to it}}
static int *keyp = &sentinel.key; // expected-error {{so the static initializer of 'keyp' cannot refer to it}}
static struct node ring[3];
static struct node *third = &ring[2]; // expected-error {{so the static initializer of 'third' cannot refer to it}}
static struct node *head_of_ring = ring; // the first element: set by a constructor
int uses(void) { return (anchor == fixed) + *keyp + (third == head_of_ring); }
struct holder { int n; struct node *at; };
static struct holder pair = {1, NIL}; // expected-error {{'sentinel' lives in the compact heap (its address is used as a compact pointer), so the static initializer of 'pair' cannot refer to it; assign it at run time}}
int pair_n(void) { return pair.n + (pair.at == first); }

struct node *last(void) {
  static struct node *cached = &sentinel; // expected-error {{so the static initializer of 'cached' cannot refer to it}}
  struct node *p = NIL; // at run time: fine
  return cached ? cached : p;
}

// A block-scope extern of a global in the compact heap, before the
// file-scope definition: the rewrite's accessor is declared at file scope,
// after the first file-scope declaration, which this function precedes.
static int late_id(void) {
  extern struct node late; // expected-error {{cannot place 'late' in the compact heap through this block-scope extern declaration; declare it at file scope, before this function}}
  return late.next->key;
}
struct node late = {7, &late};
int use_late(void) { return late_id(); }
