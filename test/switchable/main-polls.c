// main is always checked; the plugin puts a safepoint poll at the start of
// the body of each of its loops that may allocate (for, while, do; nested;
// bodies without braces get them); a loop that cannot allocate gets one poll
// in front of it and none inside.  The poll saves main's compact-pointer
// locals only on its slow path.  -fplugin-arg-compactptr-auto-safepoints=off
// leaves main's loops alone; explicit cp_safepoint() calls stay either way.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Werror -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck %s
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Werror -fplugin-arg-compactptr-auto-safepoints=off -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck --check-prefix=OFF %s
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Werror -fplugin-arg-compactptr-auto-safepoints=on -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck %s
#include <compactptr.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next; };

static void spin(int i) {
  while (i-- > 0)
    ;
}
/* It allocates: loops that call it may make a switch pending. */
static void helper(int i) {
  struct node *n = malloc(sizeof *n);
  n->key = i;
  spin(i);
  free(n);
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
  for (j = 0; j < 3; j++)
    spin(j);
  (void)h;
  return 0;
}
// Loops outside main get no poll.
// CHECK: {{^}}  while (i-- > 0)
// CHECK-NEXT: {{^}}    ;
// CHECK: {{^}}  void *cp__slots[1] = {0}; {{.*}} cp_frame_push(&cp__slotframe); for (i = 0; i < 10; i++) { if (cp__safepoint_due()) { cp__slots[0] = (void *)h; cp_safepoint_slow(); h = cp__slots[0]; }
// CHECK-NEXT: {{^}}    for (j = 0; j < 3; j++)
// CHECK-NEXT: {{^}}      { if (cp__safepoint_due()) { cp__slots[0] = (void *)h; cp_safepoint_slow(); h = cp__slots[0]; } (void)(__extension__({ cp__slots[0] = (void *)h; helper(j); h = cp__slots[0]; })); }
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}  while (i-- > 0) { if (cp__safepoint_due()) { {{.*}} } (void)(__extension__({ cp__slots[0] = (void *)h; helper(i); h = cp__slots[0]; })); }
// This loop cannot allocate (cp_safepoint() is not an allocation): one poll
// in front; the explicit poll stays.
// CHECK-NEXT: {{^}}  { if (cp__safepoint_due()) { {{.*}} } do {{[{]$}}
// CHECK-NEXT: {{^}}    (void)(__extension__({ if (cp__safepoint_due()) { cp__slots[0] = (void *)h; cp_safepoint_slow(); h = cp__slots[0]; } }));
// CHECK-NEXT: {{^}}  } while (++i < 3); }
// CHECK-NEXT: {{^}}  { if (cp__safepoint_due()) { {{.*}} } for (j = 0; j < 3; j++)
// CHECK-NEXT: {{^}}    spin(j); }
// With auto-safepoints off the calls still save h around them (helper
// allocates: an allocation is a safepoint), but main's loops get no poll.
// OFF: {{^}}  void *cp__slots[1] = {0}; {{.*}} cp_frame_push(&cp__slotframe); for (i = 0; i < 10; i++) {{[{]$}}
// OFF-NEXT: {{^}}    for (j = 0; j < 3; j++)
// OFF-NEXT: {{^}}      (void)(__extension__({ cp__slots[0] = (void *)h; helper(j); h = cp__slots[0]; }));
// OFF-NEXT: {{^}}  }
// OFF-NEXT: {{^}}  while (i-- > 0) (void)(__extension__({ cp__slots[0] = (void *)h; helper(i); h = cp__slots[0]; }));
// OFF-NEXT: {{^}}  do {{[{]$}}
// OFF-NEXT: {{^}}    (void)(__extension__({ if (cp__safepoint_due()) { cp__slots[0] = (void *)h; cp_safepoint_slow(); h = cp__slots[0]; } }));
