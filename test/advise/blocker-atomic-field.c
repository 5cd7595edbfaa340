// A volatile or _Atomic pointer to a struct, or an _Atomic struct field:
// once the struct pointed to or held is compact (and with it the struct
// of the field), the plugin refuses the field, so advise blocks that
// struct.  A volatile pointee (`volatile struct node *`) is fine.
// RUN: compactptr-advise %s -- %cflags | FileCheck %s
// (test/advise/plugin-agreement.test checks the plugin's errors below.)
#include <compactptr.h>
#include <stdatomic.h>
#include <stdlib.h>
#ifndef MARK
#define MARK
#endif

struct MARK node {
  long key;
  struct node *volatile next; // expected-error {{volatile or _Atomic compact pointer 'next' is not supported}}
  // CHECK: blocker-atomic-field.c:[[@LINE-1]]: volatile pointer 'next' in 'struct node' points to 'struct node' (a handle is not loaded or stored as the pointer would be) [unsupported-type, plugin: error]
  volatile struct node *peer;
};

struct MARK cell {
  long v;
  struct cell *next;
};
struct MARK stack {
  _Atomic(struct cell *) top; // expected-error {{_Atomic compact pointer 'top' is not supported}}
  // CHECK: blocker-atomic-field.c:[[@LINE-1]]: _Atomic pointer 'top' in 'struct stack' points to 'struct cell' (a handle is not loaded or stored as the pointer would be) [unsupported-type, plugin: error]
  struct stack *up;
};

struct node *mk(void) { return calloc(1, sizeof(struct node)); }
struct cell *mkc(void) { return calloc(1, sizeof(struct cell)); }
struct stack *mks(void) { return calloc(1, sizeof(struct stack)); }
