// Casts between compact pointers and integers (a node's address used as a
// hash key) keep their compile-time warning, and the plugin records each
// site in the type's descriptor: at a switch the runtime names the type,
// the number of sites and where they are, summed over translation units,
// on stderr with or without COMPACTPTR_STATS.  A program without such
// casts gets no such line.
// REQUIRES: plugin
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=switchable %s %runtime -o %t 2>&1 | FileCheck --check-prefix=WARN %s
// RUN: env COMPACTPTR_STATS=1 %t 2>&1 | FileCheck --check-prefixes=STATS,CHECK %s
// RUN: env COMPACTPTR_VERIFY=1 %t 2>&1 | FileCheck %s
// RUN: %t 2>&1 | FileCheck %s
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=switchable -DNO_CASTS %s %runtime -o %t.none
// RUN: env COMPACTPTR_STATS=1 %t.none 2>&1 | FileCheck --check-prefix=NONE %s
// WARN: integer-cast-report.c:[[@LINE+24]]:{{[0-9]+}}: warning: compact pointer to 'struct node' cast to an integer and hashed; the switch to wide mode moves every object, so a table keyed on addresses taken before it finds nothing after it (key the table on a field of the object, or build the program compact-only, which never switches) [-Wcompactptr-integer-cast]
// WARN: integer-cast-report.c:[[@LINE+24]]:{{[0-9]+}}: warning: integer cast to a compact pointer to 'struct node'; it must hold the address of a heap object [-Wcompactptr-integer-cast]
// STATS: compactptr: switch to wide mode
// CHECK: compactptr: warning: pointers to 'node' are made integers (cast, or their bytes read) or back at 2 sites ({{.*}}integer-cast-report.c:[[@LINE+21]], {{.*}}integer-cast-report.c:[[@LINE+22]]): an integer or a hash taken before the switch still holds the object's compact address, which names nothing now (warned at compile time: -Wcompactptr-integer-cast)
// CHECK-NOT: pointers to 'leaf'
// CHECK: 4950
// NONE: compactptr: switch to wide mode
// NONE-NOT: are cast to integers
// NONE: compactptr: mode wide
#include <compactptr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT leaf {
  int x;
};
struct CP_COMPACT node {
  long key;
  struct node *next;
  struct leaf *leaf;
};

#ifndef NO_CASTS
static unsigned bucket(struct node *n) { return (unsigned)((uintptr_t)n >> 4) % 61; }
static struct node *back(uintptr_t a) { return (struct node *)a; }
#else
static unsigned bucket(struct node *n) { return n->key % 61; }
static struct node *back(uintptr_t a) { return a ? NULL : NULL; }
#endif

int main(void) {
  struct node *head = NULL;
  unsigned h = 0;
  for (int i = 0; i < 100; i++) {
    struct node *n = malloc(sizeof *n);
    n->key = i;
    n->next = head;
    n->leaf = NULL;
    head = n;
    h += bucket(n) < 61 && back(0) == NULL;
  }
  cp_switch_to_wide();
  long s = 0;
  for (struct node *p = head; p; p = p->next)
    s += p->key;
  printf("%ld\n", s + 0 * h);
  return 0;
}
