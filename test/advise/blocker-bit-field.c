// A bit-field in a candidate struct blocks it: the compact layout is
// built field by field and a bit-field has no address or size of its own.
// RUN: compactptr-advise %s -- %cflags | FileCheck %s
#include <compactptr.h>
#include <stdlib.h>
#ifndef MARK
#define MARK
#endif

struct MARK node {
  unsigned color : 1; // expected-error {{bit-field 'color' in compact type 'struct node' is not supported; use a plain integer field}}
  // CHECK: blocker-bit-field.c:[[@LINE-1]]: bit-field 'color' in 'struct node' [bit-field, plugin: error]
  struct node *next;
};

struct node *make(void) { return malloc(sizeof(struct node)); }
