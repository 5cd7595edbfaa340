// Flexible array members in compact types are refused.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>

struct CP_COMPACT node {
  struct node *next;
  int n;
  int data[]; // expected-error {{flexible array member 'data' in compact type 'struct node' is not supported (the runtime's slabs hold objects of one size per type); keep the elements in an array of their own, reached through a pointer field (int *data;) and allocated with malloc}}
};
