// Unions cannot hold compact pointers or compact structs: the rewrite cannot
// know which member is live when it converts between layouts.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>

struct CP_COMPACT node {
  int key;
  struct node *next;
};

union slot {
  long bits;
  struct node *ptr; // expected-error {{union member 'ptr' holds a compact pointer to 'struct node'; compact pointers cannot live in unions}}
};

union value {
  double d;
  struct node n; // expected-error {{union member 'n' holds compact type 'struct node'; compact types cannot live in unions}}
};

// A union of plain data is fine, even inside a compact struct.
union plain { int i; float f; };
struct CP_COMPACT tagged {
  union plain u;
  struct tagged *next;
};
