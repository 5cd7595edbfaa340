// A diagnostic points at the user's own text: in a rewritten file (a
// warning lets the rewrite go on) the line, the column and the snippet are
// the user's, not the rewritten code's, and a use produced by a macro gets
// clang's "expanded from macro" note at the definition.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only %s 2>&1 | FileCheck --strict-whitespace %s
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only %s 2>&1 | FileCheck --strict-whitespace %s
#include <compactptr.h>
#include <stdint.h>

struct CP_COMPACT village { long seed; struct village *next; };
#define HASH(v) ((uintptr_t)(v)->next)

uintptr_t h(struct village *village) { village->seed = 1; return (uintptr_t)village->next; }
// CHECK: user-spelling.c:[[@LINE-1]]:66: warning: compact pointer to 'struct village' cast to an integer
// CHECK-NEXT: {{^}}   [[@LINE-2]] | uintptr_t h(struct village *village) { village->seed = 1; return (uintptr_t)village->next; }
// CHECK-NEXT: {{^}}      |                                                                  ^~~~~~~~~~~~~~~~~~~~~~~~
uintptr_t k(struct village *v) { return HASH(v) + 1; }
// CHECK: user-spelling.c:[[@LINE-1]]:41: warning: compact pointer to 'struct village' cast to an integer
// CHECK: user-spelling.c:12:18: note: expanded from macro 'HASH'
// CHECK-NEXT: {{^}}   12 | #define HASH(v) ((uintptr_t)(v)->next)
