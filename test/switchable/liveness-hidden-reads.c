// Reads of a compact-pointer local that neither the source's later uses
// nor the CFG's liveness show, each after a call that switches: the local
// must still be saved around the call and read back.
// - a cleanup function reads it when its scope ends (no use after the
//   call at all);
// - a switch over an enum that names every enumerator and has no default,
//   left by an out-of-range value (the CFG marks that edge unreachable);
// - the bound of a pointer-to-VLA type, evaluated where the type is
//   written (it compares the local; a bound that reads a compact object
//   is refused: diagnostics/array-bound.c).
// Each failed with exit 70 (a compact pointer used after the switch) when
// the local was not saved.
// REQUIRES: plugin
// The switch happens inside the case's own call of grow.
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %clang %cflags -O1 %s -o %t.native
// RUN: %t.native cleanup | FileCheck --check-prefix=CLEANUP %s
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 %t cleanup 2> %t.err | FileCheck --check-prefix=CLEANUP %s
// RUN: grep -q 'switch to wide mode' %t.err
// RUN: %t.native enum | FileCheck --check-prefix=ENUM %s
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 %t enum 2> %t.err | FileCheck --check-prefix=ENUM %s
// RUN: grep -q 'switch to wide mode' %t.err
// RUN: %t.native vla | FileCheck --check-prefix=VLA %s
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 %t vla 2> %t.err | FileCheck --check-prefix=VLA %s
// RUN: grep -q 'switch to wide mode' %t.err
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  long key;
  struct node *next;
};

static struct node *node_new(long key) {
  struct node *n = malloc(sizeof *n);
  if (!n)
    exit(2);
  n->key = key;
  return n;
}

// Enough nodes that the switch happens inside one call of grow.
static long grow(struct node *after, int count) {
  long sum = 0;
  for (int i = 0; i < count; i++) {
    struct node *m = node_new(i);
    m->next = after->next;
    after->next = m;
    sum += i;
  }
  return sum;
}

static void report(struct node **slot) { printf("cleanup sees %ld\n", (*slot)->key); }

static long with_cleanup(struct node *kept, struct node *list) {
  struct node *watched __attribute__((cleanup(report))) = kept;
  return grow(list, 30000);
}

enum shade { LIGHT, DARK };

static long with_enum_switch(struct node *a, struct node *b, enum shade s) {
  struct node *p = a;
  long sum = grow(b, 30000);
  switch (s) {
  case LIGHT:
    p = b;
    break;
  case DARK:
    p = b;
    break;
  }
  return sum + p->key;
}

static char rows[1 << 16];

static long with_vla_bound(struct node *a, struct node *b) {
  struct node *p = a;
  long sum = grow(b, 30000);
  long width = a->key;
  char(*row)[width + (p == a)] = (void *)rows;
  sum += (long)sizeof *row;
  p = b;
  return sum + p->key;
}

int main(int argc, char **argv) {
  struct node *a = node_new(7), *b = node_new(9);
  const char *which = argc > 1 ? argv[1] : "";
  if (which[0] == 'c')
    printf("%ld\n", with_cleanup(a, b));
  else if (which[0] == 'e')
    printf("%ld\n", with_enum_switch(a, b, (enum shade)(argc + 1)));
  else
    printf("%ld\n", with_vla_bound(a, b));
  return 0;
}
// CLEANUP: cleanup sees 7
// CLEANUP-NEXT: 449985000
// ENUM: 449985007
// VLA: 449985017
