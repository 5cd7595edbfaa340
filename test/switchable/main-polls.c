// main is always checked; the plugin puts a safepoint poll at the start of
// the body of each of its loops in which a switch may become pending where
// no safepoint is legal -- here an allocation through a pointer under a
// dual function's compact body (for, while, do; nested; bodies without
// braces get them).  A loop whose allocations are safepoints themselves
// needs no poll; a loop that cannot allocate gets one poll in front of it
// and none inside.  The poll saves main's compact-pointer locals only on
// its slow path.  -fplugin-arg-compactptr-auto-safepoints=off leaves main's
// loops alone; explicit cp_safepoint() calls stay either way.
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
static struct node *make(int k) {
  struct node *n = malloc(sizeof *n);
  n->key = k;
  return n;
}
/* An allocator in another file: the plugin cannot see what it reaches
   (a pointer to `make`, of this file and of its type, would make helper
   checked). */
struct node *make_elsewhere(int k);
static struct node *(*maker)(int) = make_elsewhere;
/* Dual: it allocates through a pointer, under its compact body, where the
   switch cannot run: loops that call it need polls. */
static void helper(int i) {
  struct node *n = maker(i);
  n->key += i;
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
  for (j = 0; j < 3; j++)
    h = make(j);
  (void)h;
  return 0;
}
// Loops outside main get no poll.
// CHECK: {{^}}  while (i-- > 0)
// CHECK-NEXT: {{^}}    ;
// CHECK: {{^}}  { struct cp__slotframe_s { cp_frame_t f; void *s[1]; } {{.*}} cp__frame(&cp__slotframe.f, 1 | CP_FRAME_RELATIVE, cp__slotroots)); for (i = 0; i < 10; i++) { if (cp__safepoint_due()) { (void)(cp__slotframe.s[0] = h); cp_safepoint_slow(); h = cp__slotframe.s[0]; cp__slotframe.s[0] = 0; }
// CHECK-NEXT: {{^}}    for (j = 0; j < 3; j++)
// CHECK-NEXT: {{^}}      { if (cp__safepoint_due()) { (void)(cp__slotframe.s[0] = h); cp_safepoint_slow(); h = cp__slotframe.s[0]; cp__slotframe.s[0] = 0; } helper(j); }
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}  while (i-- > 0) { if (cp__safepoint_due()) { {{.*}} } helper(i); }
// These loops cannot allocate (cp_safepoint() is not an allocation): one
// poll in front; the explicit poll stays.
// CHECK-NEXT: {{^}}  { if (cp__safepoint_due()) { {{.*}} } do {{[{]$}}
// CHECK-NEXT: {{^}}    (void)(__extension__({ if (cp__safepoint_due()) { (void)(cp__slotframe.s[0] = h); cp_safepoint_slow(); h = cp__slotframe.s[0]; cp__slotframe.s[0] = 0; } }));
// CHECK-NEXT: {{^}}  } while (++i < 3); }
// CHECK-NEXT: {{^}}  { if (cp__safepoint_due()) { {{.*}} } for (j = 0; j < 3; j++)
// CHECK-NEXT: {{^}}    spin(j); }
// An allocation of checked code is a safepoint itself: no poll.
// CHECK-NEXT: {{^}}  for (j = 0; j < 3; j++)
// CHECK-NEXT: {{^}}    (void)(h = __extension__({ __auto_type [[R:cp__r[0-9]+]] = (cp__slotframe.s[0] = h, make(j)); h = cp__slotframe.s[0]; cp__slotframe.s[0] = 0; [[R]]; }));
// With auto-safepoints off, main's loops get no poll (and the frame of
// slots goes before the first statement that may reach a safepoint).
// OFF: {{^}}  for (i = 0; i < 10; i++) {{[{]$}}
// OFF-NEXT: {{^}}    for (j = 0; j < 3; j++)
// OFF-NEXT: {{^}}      helper(j);
// OFF-NEXT: {{^}}  }
// OFF-NEXT: {{^}}  while (i-- > 0) helper(i);
// OFF-NEXT: {{^}}  { struct cp__slotframe_s { cp_frame_t f; void *s[1]; } {{.*}} do {{[{]$}}
// OFF-NEXT: {{^}}    (void)(__extension__({ if (cp__safepoint_due()) { (void)(cp__slotframe.s[0] = h); cp_safepoint_slow(); h = cp__slotframe.s[0]; cp__slotframe.s[0] = 0; } }));
