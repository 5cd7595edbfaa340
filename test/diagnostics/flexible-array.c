// A flexible array member in a compact type is room whose elements the
// switch copies as bytes (switchable/flexible-array-switch.c): one whose
// elements hold compact pointers (a skip list's forward links, nested
// compact structs) is refused (flexible-array-alloc.c: its allocations).
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>

struct CP_COMPACT node {
  struct node *next;
  int n;
  int data[];
};

struct CP_COMPACT skip {
  int key;
  struct skip *forward[]; // expected-error {{flexible array member 'forward' in compact type 'struct skip' holds compact pointers, which is not supported (the switch copies the member's elements as bytes); keep the elements in an array of their own, reached through a pointer field (struct skip **forward;) and allocated with malloc}}
};

struct CP_COMPACT leaf {
  struct leaf *next;
  int v;
};

struct CP_COMPACT bag {
  struct bag *up;
  struct leaf items[]; // expected-error {{flexible array member 'items' in compact type 'struct bag' holds compact pointers}}
};

// A plain struct ending in a flexible array member, as the last member of
// a compact one (a GNU extension): refused.
struct tail {
  int n;
  char bytes[];
};
struct CP_COMPACT item {
  struct item *next;
  struct tail t; // expected-error {{member 't' of compact type 'struct item' is a struct with a flexible array member, which is not supported; put the flexible array member in 'struct item' itself}}
};
