// Where the compact arena goes, chosen once at load time and named by
// COMPACTPTR_STATS.  Handles are zero-based, so the arena lies below their
// reach: just above 2 MiB when that range is free, as in a
// position-independent executable; in the largest free gap below the reach
// when it is not, as in an executable linked at a fixed low address (above
// its program break, with room for the brk heap), smaller than asked.
// Both print what the native build prints; COMPACTPTR_ARENA_LIMIT bounds
// the reservation itself.
// REQUIRES: plugin
// RUN: %clang %cflags -O2 %s -o %t.native && %t.native > %t.expected
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.pie
// RUN: env COMPACTPTR_STATS=1 %t.pie > %t.out 2> %t.stats
// RUN: diff %t.expected %t.out
// RUN: FileCheck --check-prefix=LOW %s < %t.stats
// LOW: compactptr: handles: {{unscaled \(h\)|zero-based \(h << [23]\)}}; arena 0x200000-0x{{[0-9a-f]+}}{{$}}
// RUN: env COMPACTPTR_STATS=1 COMPACTPTR_ARENA_LIMIT=4M %t.pie 2>&1 >/dev/null | FileCheck --check-prefix=LIMIT %s
// LIMIT: compactptr: handles: {{unscaled \(h\)|zero-based \(h << [23]\)}}; arena 0x200000-0x600000{{$}}
// RUN: %clang %cflags -O2 -fno-pic -no-pie -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.nopie
// RUN: env COMPACTPTR_STATS=1 %t.nopie > %t.out 2> %t.stats
// RUN: diff %t.expected %t.out
// RUN: FileCheck --check-prefix=GAP %s < %t.stats
// GAP: compactptr: handles: {{unscaled \(h\)|zero-based \(h << [23]\)}}; arena 0x{{[0-9a-f]+}}-0x{{[0-9a-f]+}}, in the largest free gap (the range from 2 MiB to the reach is not all free) (shrunk from {{[0-9]+}} bytes: the largest free range below {{[0-9]+}} bytes, where handles reach, is smaller)
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  int key;
  struct node *left, *right;
};

static struct node *insert(struct node *t, int key) {
  struct node *n = malloc(sizeof *n), *p = t;
  n->key = key;
  n->left = n->right = NULL;
  if (!t)
    return n;
  for (;;) {
    struct node *next = key < p->key ? p->left : p->right;
    if (!next)
      break;
    p = next;
  }
  if (key < p->key)
    p->left = n;
  else
    p->right = n;
  return t;
}

int main(void) {
  struct node *t = NULL;
  unsigned x = 12345;
  for (int i = 0; i < 20000; i++) {
    x = x * 1103515245u + 12345u;
    t = insert(t, (int)(x >> 8) % 100000);
  }
  long depth_sum = 0, n = 0;
  for (int i = 0; i < 100000; i += 7) {
    int d = 0;
    for (struct node *p = t; p; p = i < p->key ? p->left : p->right, d++)
      if (p->key == i) {
        depth_sum += d;
        n++;
        break;
      }
  }
  printf("%ld found, depth sum %ld\n", n, depth_sum);
  return 0;
}
