// Bit-fields in compact types are laid out as runs that keep their bits'
// places relative to a boundary aligned for the run (rewrite/bit-fields.c);
// a bit-field with an alignment of its own would move that boundary, and
// is refused, as are bit-fields laid out by Microsoft's rules.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>

struct CP_COMPACT node {
  unsigned color : 1 __attribute__((aligned(8))); // expected-error {{bit-field 'color' in compact type 'struct node' has an alignment of its own, which is not supported; remove the aligned attribute}}
  struct node *next;
};

struct CP_COMPACT __attribute__((ms_struct)) msnode {
  struct msnode *next;
  unsigned char a : 3; // expected-error {{bit-field 'a' in compact type 'struct msnode' is laid out by Microsoft's rules (ms_struct, -mms-bitfields), which is not supported; use the target's own layout}}
  unsigned short b : 9; // expected-error {{bit-field 'b' in compact type 'struct msnode' is laid out by Microsoft's rules}}
};

// Plain bit-fields, unnamed ones and zero-width ones are fine.
struct CP_COMPACT tree {
  struct tree *kid[2];
  unsigned red : 1, : 0, depth : 12;
};

// Bit-fields in structs that are not compact are untouched.
struct flags { unsigned a : 1, b : 3; };
