// Right after realloc moves an array of nodes, the links inside the new
// array still name the old, freed one until the program relinks them.  A
// switch in between is legal C, and COMPACTPTR_VERIFY reports those fields
// (a few by name, then a count) instead of stopping the program, as a
// collector's verifier that knows the language's rules does: holding a
// pointer to freed memory is allowed until it is used.  Both a small array
// (its old slot freed) and a large one (its old run given back) are moved.
// REQUIRES: plugin
// RUN: %clang %cflags -O2 -Wall -Werror %s -o %t.native && %t.native > %t.native.out
// RUN: FileCheck --check-prefix=OUT %s < %t.native.out
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=switchable %s %runtime -o %t
// RUN: env COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.native.out -
// RUN: FileCheck %s < %t.err
// OUT: 6 4498500
// CHECK: compactptr: verify (before the switch): field 'next' of the 'node' object at 0x{{[0-9a-f]+}} holds 0x{{[0-9a-f]+}}, which {{is inside the arena but in no slab \(memory freed and given back\)|is not a live object \(freed, or never allocated\)}}: reported, not an error (C allows holding a pointer to freed memory until it is used)
// CHECK: compactptr: verify (before the switch): 3002 fields name freed memory in all (2997 more not listed); the switch leaves them as they are
// CHECK: compactptr: verify (after the switch): field 'next' of the 'node' object at 0x{{[0-9a-f]+}} holds 0x{{[0-9a-f]+}}, which is not a live object (freed, or never allocated): reported
// CHECK: compactptr: switch to wide mode (cp_switch_to_wide()) after {{[0-9]+}} allocations: {{.*}}, verified
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  long key;
  struct node *next;
};

/* Links every element to the one after it. */
static void relink(struct node *a, int n) {
  for (int i = 0; i + 1 < n; i++)
    a[i].next = &a[i + 1];
  a[n - 1].next = NULL;
}

static long walk(struct node *p) {
  long s = 0;
  for (; p; p = p->next)
    s += p->key;
  return s;
}

int main(void) {
  int n = 4, big = 3000;
  struct node *small = malloc(n * sizeof *small);
  struct node *large = malloc(big * sizeof *large);
  for (int i = 0; i < n; i++)
    small[i].key = i;
  for (int i = 0; i < big; i++)
    large[i].key = i;
  relink(small, n);
  relink(large, big);
  small = realloc(small, 2 * n * sizeof *small);
  large = realloc(large, 4 * big * sizeof *large);
  cp_switch_to_wide();
  relink(small, n);
  relink(large, big);
  printf("%ld %ld\n", walk(small), walk(large));
  free(small);
  free(large);
  return 0;
}
