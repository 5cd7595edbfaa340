// Casting a compact pointer to an integer or an unrelated pointer type is
// allowed but warned: addresses change at the switch to wide mode, and
// compact objects are aligned to 4 bytes only (a tag in the low three
// bits of a node's address, as in red-black trees, does not fit).
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <stdint.h>

struct CP_COMPACT node { int key; struct node *next; };

uintptr_t hash(struct node *p) {
  return (uintptr_t)p; // expected-warning {{compact objects are aligned to 4 bytes (8 with 8-byte granules), not to malloc's 16: no low bit beyond those is free for a tag}}
}

int *keyp(struct node *p) {
  return (int *)p; // expected-warning {{compact pointer 'struct node *' cast to unrelated pointer type 'int *'; the object is in compact layout}}
}

struct node *back(uintptr_t v) {
  return (struct node *)v; // expected-warning {{integer cast to a compact pointer to 'struct node'; it must hold the address of a heap object}}
}
