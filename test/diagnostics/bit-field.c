// Bit-fields in compact types are refused: the compact layout reorders
// fields and its descriptor needs every field's offset.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>

struct CP_COMPACT node {
  unsigned color : 1; // expected-error {{bit-field 'color' in compact type 'struct node' is not supported; use a plain integer field}}
  struct node *next;
};

// Bit-fields in structs that are not compact are untouched.
struct flags { unsigned a : 1, b : 3; };
