// main is always checked; the plugin puts a safepoint poll at the start of
// the body of each of its loops (for, while, do; nested; bodies without
// braces get them).  -fplugin-arg-compactptr-auto-safepoints=off leaves
// main's loops alone; explicit cp_safepoint() calls stay either way.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Werror -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck %s
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Werror -fplugin-arg-compactptr-auto-safepoints=off -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck --check-prefix=OFF %s
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Werror -fplugin-arg-compactptr-auto-safepoints=on -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck %s
#include <compactptr.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next; };

static void helper(int i) {
  while (i-- > 0)
    ;
}

int main(void) {
  struct node *h = NULL;
  int i = 0, j;
  for (i = 0; i < 10; i++) {
    for (j = 0; j < 3; j++)
      helper(j);
  }
  while (i-- > 0) helper(i);
  do {
    cp_safepoint();
  } while (++i < 3);
  (void)h;
  return 0;
}
// Loops outside main get no poll.
// CHECK: {{^}}  while (i-- > 0)
// CHECK-NEXT: {{^}}    ;
// CHECK: {{^}}  for (i = 0; i < 10; i++) { cp_safepoint();
// CHECK-NEXT: {{^}}    for (j = 0; j < 3; j++)
// CHECK-NEXT: {{^}}      { cp_safepoint(); helper(j); }
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}  while (i-- > 0) { cp_safepoint(); helper(i); }
// CHECK-NEXT: {{^}}  do { cp_safepoint();
// CHECK-NEXT: {{^}}    cp_safepoint();
// CHECK-NEXT: {{^}}  } while (++i < 3);
// OFF: {{^}}  for (i = 0; i < 10; i++) {{[{]$}}
// OFF-NEXT: {{^}}    for (j = 0; j < 3; j++)
// OFF-NEXT: {{^}}      helper(j);
// OFF-NEXT: {{^}}  }
// OFF-NEXT: {{^}}  while (i-- > 0) helper(i);
// OFF-NEXT: {{^}}  do {{[{]$}}
// OFF-NEXT: {{^}}    cp_safepoint();
