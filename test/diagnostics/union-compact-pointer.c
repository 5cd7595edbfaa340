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

// A tagged union of node variants (an AST): one error per member, which
// says the way out; its unnamed structs get no error of their own (they
// had "compact type needs a name", which naming them did not cure).
struct CP_COMPACT expr {
  int kind;
  union {
    struct { struct expr *l, *r; } bin; // expected-error {{union member 'bin' holds a struct with compact pointers; compact types cannot live in unions (make the union a struct, one field per member, or give each variant a compact struct of its own; a program that reads one member through another (type punning) needs the variants kept apart instead)}}
    struct expr *neg; // expected-error {{union member 'neg' holds a compact pointer to 'struct expr'}}
    long num;
  } u;
};
