// Compact types cannot be reinterpreted as other struct types: their
// compact layouts differ from what the cast promises.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>

struct CP_COMPACT a { int x; struct a *next; };
struct CP_COMPACT b { int x; struct b *next; };
struct plain { int x; void *next; };

struct b *ab(struct a *p) {
  return (struct b *)p; // expected-error {{cast from 'struct a *' to 'struct b *' reinterprets one compact type as another; their compact layouts differ}}
}

struct plain *ap(struct a *p) {
  return (struct plain *)p; // expected-error {{cast from compact pointer 'struct a *' to 'struct plain *'; the object is in compact layout, not in the layout of 'struct plain'}}
}

struct a *pa(struct plain *p) {
  return (struct a *)p; // expected-error {{cast from 'struct plain *' to compact pointer 'struct a *'; only void * or char * may be cast to a compact pointer}}
}

// Through void * and char * is fine.
struct a *va(void *p) { return (struct a *)p; }
char *ac(struct a *p) { return (char *)p; }
