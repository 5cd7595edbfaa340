// Casts: to an integer (the plugin warns: the value does not survive the
// switch), to a pointer to another struct (an error: the object is in
// compact layout), to an unrelated non-byte pointer (a warning).  Casts to
// void * and char * are fine.
// RUN: compactptr-advise %s -- %cflags | FileCheck %s
#include <compactptr.h>
#include <stdint.h>
#include <stdlib.h>
#ifndef MARK
#define MARK
#endif

struct MARK node {
  long key;
  struct node *next;
};
struct header { char tag[8]; };
// CHECK: struct node: blocked
// CHECK: blockers (3):

struct node *make(void) { return malloc(sizeof(struct node)); }

uintptr_t as_int(struct node *p) {
  return (uintptr_t)p; // expected-warning {{compact pointer to 'struct node' cast to an integer}}
  // CHECK-NEXT: blocker-casts.c:[[@LINE-1]]: a 'struct node *' is cast to the integer type 'uintptr_t' [integer-cast, plugin: warning]
}

struct header *as_header(struct node *p) {
  return (struct header *)p; // expected-error {{cast from compact pointer 'struct node *' to 'struct header *'}}
  // CHECK-NEXT: blocker-casts.c:[[@LINE-1]]: a 'struct node *' is cast to 'struct header *' [incompatible-cast, plugin: error]
}

long *as_longs(struct node *p) {
  return (long *)p; // expected-warning {{compact pointer 'struct node *' cast to unrelated pointer type 'long *'}}
  // CHECK-NEXT: blocker-casts.c:[[@LINE-1]]: a 'struct node *' is cast to the unrelated pointer type 'long *' [unrelated-cast, plugin: warning]
}

void *as_bytes(struct node *p) { return (char *)p; } // fine
