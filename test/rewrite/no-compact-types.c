// A file without compact types is printed unchanged (no preamble).
// RUN: %rewrite %s -- %cflags | FileCheck --match-full-lines %s
#include <stdlib.h>
struct node { struct node *next; };
struct node *f(void) { return malloc(sizeof(struct node)); }
// CHECK: // ===== compactptr: {{.*}}no-compact-types.c =====
// CHECK-NEXT: // A file without compact types is printed unchanged (no preamble).
// CHECK: struct node *f(void) { return malloc(sizeof(struct node)); }
