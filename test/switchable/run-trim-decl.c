// A run of statements versioned by mode stops before a declaration whose
// variable is used after the run; that cut moves statements out of the
// run, and a declaration before the cut whose uses were among them must
// leave the run too (here `a`: cut at `b`, which is used after the
// allocation, `*a += 1` falls outside the run, so the run stops before
// `a`).  The copies would otherwise declare `a` inside both branches of
// the version and the use after them would not compile.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 %s -o %t.native && %t.native > %t.native.out
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %t > %t.out && diff %t.native.out %t.out
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 %t > %t.out && diff %t.native.out %t.out
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next; };

int main(void) {
  struct node *n = malloc(sizeof *n), *m = malloc(sizeof *m);
  n->next = m;
  m->next = NULL;
  n->key = 1;
  int *a = &n->key;
  struct node *b = n->next;
  *a += 1;
  m->key = 2;
  struct node *c = malloc(sizeof *c);
  c->key = b->key + n->key;
  printf("%d\n", c->key);
  return 0;
}
