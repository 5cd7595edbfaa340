// A packed struct is blocked: the compact layout is aligned to 4 bytes.
// #pragma pack is caught too (a field at an offset its type does not
// allow).
// RUN: compactptr-advise %s -- %cflags | FileCheck %s
#include <compactptr.h>
#include <stdlib.h>
#ifndef MARK
#define MARK
#endif

struct __attribute__((packed)) MARK node { // expected-error {{compact type 'struct node' is packed}}
  // CHECK-DAG: blocker-packed.c:[[@LINE-1]]: 'struct node' is packed [packed, plugin: error]
  char tag;
  struct node *next;
};

#pragma pack(push, 1)
struct MARK cell { // expected-error {{compact type 'struct cell' is packed}}
  // CHECK-DAG: blocker-packed.c:[[@LINE-1]]: 'struct cell' is packed (field 'next' is misaligned) [packed, plugin: error]
  char tag;
  struct cell *next;
};
#pragma pack(pop)

struct node *make(void) { return malloc(sizeof(struct node)); }
struct cell *make_cell(void) { return malloc(sizeof(struct cell)); }
