// Switchable mode: an address kept as an integer in a field (the Linux
// rbtree's parent pointer and colour in one `unsigned long`) is not
// translated by the switch, so the first rb_parent() after it stopped the
// program (exit 70) after warnings that only said an integer must hold a
// heap address.  Both ends now say why it breaks and what to write
// instead.  Compact-only builds never move objects: the plain warnings.
// (FileCheck, not -verify: as in address-hashed.c, -verify does not see
// the integer-cast warnings, which a plain compile prints.)
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only %s 2>&1 | FileCheck --check-prefix=SW --implicit-check-not=warning: %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only %s 2>&1 | FileCheck --check-prefix=CO --implicit-check-not=warning: %s
#include <compactptr.h>

struct CP_COMPACT rb_node {
  unsigned long parent_color;
  struct rb_node *right, *left;
};

#define rb_parent(r) ((struct rb_node *)((r)->parent_color & ~3ul))

void set_parent(struct rb_node *rb, struct rb_node *p, int color) {
  rb->parent_color = (unsigned long)p | (unsigned long)color;
  // SW: address-in-integer-field.c:[[@LINE-1]]:22: warning: compact pointer to 'struct rb_node' cast to an integer and stored in field 'parent_color'; an address kept as an integer is not translated when the switch to wide mode moves the objects, so after it the field names nothing (the program stops at its first use); keep the address in a field of pointer type and the bits beside it in a field of their own, or build the program compact-only, which never switches [-Wcompactptr-integer-cast]
  // CO: address-in-integer-field.c:[[@LINE-2]]:22: warning: compact pointer to 'struct rb_node' cast to an integer; compact objects are aligned to 4 bytes
}

struct rb_node *grandparent(struct rb_node *n) {
  return rb_parent(rb_parent(n));
  // SW: address-in-integer-field.c:[[@LINE-1]]:10: warning: integer read from field 'parent_color' cast to a compact pointer to 'struct rb_node'; an address kept as an integer is not translated
  // SW: address-in-integer-field.c:[[@LINE-2]]:20: warning: integer read from field 'parent_color' cast to a compact pointer to 'struct rb_node'; an address kept as an integer is not translated
  // CO: address-in-integer-field.c:[[@LINE-3]]:10: warning: integer cast to a compact pointer to 'struct rb_node'; it must hold the address of a heap object
  // CO: address-in-integer-field.c:[[@LINE-4]]:20: warning: integer cast to a compact pointer to 'struct rb_node'; it must hold the address of a heap object
}
