// Rewriting keeps every line at its number: the preamble ends with #line 1,
// generated declarations are appended to the struct's last line, and
// descriptors go after the last line.
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: not %clang %cflags -fsyntax-only -DBREAK %t.c 2>&1 | FileCheck --check-prefix=DIAG %s
#include <compactptr.h>
// CHECK: #line 1 "{{.*}}line-numbers.c"
// CHECK-NEXT: // Rewriting keeps every line at its number: the preamble ends with #line 1,

struct CP_COMPACT node {
  struct node *next;
};

int f(struct node *p) {
#ifdef BREAK
  return p->next->missing;
#endif
  return p->next != 0;
}
// DIAG: line-numbers.c:17:{{[0-9]+}}: error: no member named 'missing'
