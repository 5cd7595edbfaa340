// An anonymous struct or union member (C11: no member name, its fields
// reached as the enclosing struct's) is refused in a compact type: the
// compact layout names every member.  A named member of unnamed type is
// fine (test/rewrite/unnamed-member-type.c).
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>

struct CP_COMPACT node {
  struct node *next;
  union { long n; double d; }; // expected-error {{anonymous struct or union member in compact type 'struct node' is not supported; give the member a name}}
};

// Anonymous members of structs that are not compact are untouched.
struct plain { int tag; union { long n; double d; }; };
