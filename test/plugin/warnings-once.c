// Warnings are reported once: the program's own (from the outer compile)
// and the plugin's (from the nested parse, replayed at the user's line).
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Wall %s 2>&1 | FileCheck %s
#include <compactptr.h>
#include <stdint.h>

struct CP_COMPACT node { int key; struct node *next; };

uintptr_t h(struct node *p) {
  int unused;
  return (uintptr_t)p->next;
}
// CHECK: warnings-once.c:11:7: warning: unused variable 'unused'
// CHECK-NOT: unused variable
// CHECK: warnings-once.c:12:10: warning: compact pointer to 'struct node' cast to an integer
// CHECK-NOT: warning:
// CHECK: 2 warnings generated.
