// A cast between pointers to two compact types is valid where C makes it
// valid for the wide layouts: the two share a common initial sequence
// (their first fields have compatible types; the compact layouts place
// the shared fields at the same offsets), or one begins with a value of
// the other.  Any other cast is refused, naming the first fields.  Casts
// between a compact type and another struct type are refused too.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>

struct CP_COMPACT a { int x; struct a *next; };
struct CP_COMPACT b { double y; struct b *next; };
struct CP_COMPACT c { int x; long more; };
struct CP_COMPACT d { struct a base; int extra; };
struct CP_COMPACT e { struct d inner; };
struct plain { int x; void *next; };

struct b *ab(struct a *p) {
  return (struct b *)p; // expected-error {{cast from 'struct a *' to 'struct b *' reinterprets one compact type as another; their compact layouts differ: they share no common initial sequence (the first fields differ: 'int x' in 'struct a', 'double y' in 'struct b') and neither begins with the other}}
}

struct plain *ap(struct a *p) {
  return (struct plain *)p; // expected-error {{cast from compact pointer 'struct a *' to 'struct plain *'; the object is in compact layout, not in the layout of 'struct plain'}}
}

struct a *pa(struct plain *p) {
  return (struct a *)p; // expected-error {{cast from 'struct plain *' to compact pointer 'struct a *'; only void * or char * may be cast to a compact pointer}}
}

// A common initial sequence (int x), both ways.
struct c *ac(struct a *p) { return (struct c *)p; }
struct a *ca(struct c *p) { return (struct a *)p; }
// A struct that begins with another, directly or through a member's first
// member, both ways.
struct a *da(struct d *p) { return (struct a *)p; }
struct d *ad(struct a *p) { return (struct d *)p; }
struct a *ea(struct e *p) { return (struct a *)p; }

// Through void * and char * is fine.
struct a *va(void *p) { return (struct a *)p; }
char *achar(struct a *p) { return (char *)p; }
