// Bit-fields are laid out as runs (the plugin's Layout.cpp); one with an
// alignment of its own blocks the struct, and the size advise predicts for
// a struct with a run is the plugin's.
// RUN: compactptr-advise %s -- %cflags | FileCheck %s
#include <compactptr.h>
#include <stdlib.h>
#ifndef MARK
#define MARK
#endif

// CHECK: struct rb: clean
// CHECK: size: 40 bytes wide, 24 bytes compact, 16 saved per object
struct MARK rb {
  struct rb *left, *right, *parent;
  unsigned red : 1, : 0, size : 20;
  int key;
};

struct MARK node {
  unsigned color : 1 __attribute__((aligned(8))); // expected-error {{bit-field 'color' in compact type 'struct node' has an alignment of its own, which is not supported; remove the aligned attribute}}
  // CHECK: blocker-bit-field.c:[[@LINE-1]]: bit-field 'color' in 'struct node' has an alignment of its own [bit-field, plugin: error]
  struct node *next;
};

struct node *make(void) { return malloc(sizeof(struct node)); }
struct rb *make_rb(void) { return malloc(sizeof(struct rb)); }
