// A size helper is read as the product of two of its arguments only where
// every return of its body is that product, of parameters it does not
// change, with an overflow check at most (rewrite/size-helper.c).  Others
// could round, add a header or give 0 on overflow: the allocation's size
// stays unknown, refused as any size not written through sizeof, and the
// sizeof handed to such a helper is one it may keep (layout-stored).
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <stdlib.h>

struct CP_COMPACT node { int v; struct node *next; };

static size_t rounded(size_t a, size_t b) { return (a * b + 15) & ~(size_t)15; }
static size_t doubled(size_t a, size_t b) {
  a *= 2;
  return a * b;
}
static size_t zero_on_overflow(size_t a, size_t b) {
  if (b && a > (size_t)-1 / b)
    return 0;
  return a * b;
}
static size_t squared(size_t a, size_t b) {
  (void)b;
  return a * a;
}
size_t mult_elsewhere(size_t a, size_t b);

struct node *make(int n) {
  struct node *a = malloc(rounded(sizeof *a, n)); // expected-error {{allocation of compact type 'struct node' must have its size expressed as sizeof(struct node) or n * sizeof(struct node)}} expected-warning {{this sizeof of compact type 'struct node' is handed to 'rounded', which may keep it}}
  struct node *b = malloc(doubled(sizeof *b, n)); // expected-error {{allocation of compact type 'struct node' must have its size}} expected-warning {{handed to 'doubled', which may keep it}}
  struct node *c = malloc(zero_on_overflow(n, sizeof *c)); // expected-error {{allocation of compact type 'struct node' must have its size}} expected-warning {{handed to 'zero_on_overflow', which may keep it}}
  struct node *d = malloc(squared(sizeof *d, n)); // expected-error {{allocation of compact type 'struct node' must have its size}} expected-warning {{handed to 'squared', which may keep it}}
  struct node *e = malloc(mult_elsewhere(sizeof *e, n)); // expected-error {{allocation of compact type 'struct node' must have its size}} expected-warning {{handed to 'mult_elsewhere', which may keep it}}
  a->next = b;
  b->next = c;
  c->next = d;
  d->next = e;
  return a;
}
