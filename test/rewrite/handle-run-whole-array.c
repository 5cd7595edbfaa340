// A whole array of handles copied with its own size, as it is cleared
// (`memset(n->kids, 0, sizeof n->kids)`): `memcpy(n->kids, o->kids,
// sizeof o->kids)` cloning a node, also with the size spelled as the
// array type's (`sizeof(struct bnode *[16])`).  The size counts the
// array's elements, so the compact form copies that many handles, also
// less some elements (`sizeof o->kids - sizeof o->kids[0]`).  Before,
// refused: "'kids' is a handle array field; it cannot be used as a
// pointer".  A size that is no count of handles (`sizeof o->kids - 8`)
// stays refused, and the message says which sizes are.
// RUN: %rewrite --main-only %s -- %cflags -fplugin-arg-compactptr-mode=compact-only > %t.c
// RUN: FileCheck %s < %t.c
// RUN: %clang %cflags -O2 %s -o %t.native && %t.native > %t.native.out
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co && %t.co | diff %t.native.out -
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=wide %s %runtime -o %t.wide && %t.wide | diff %t.native.out -
// RUN: %clang %cflags -O2 -fplugin=%plugin %s %runtime -o %t.sw
// RUN: env COMPACTPTR_ARENA_LIMIT=512K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t.sw > %t.sw.out 2> %t.sw.err
// RUN: diff %t.native.out %t.sw.out
// RUN: grep -q "switch to wide mode (high-water mark).*verified" %t.sw.err
// RUN: not %clang %cflags -DBAD -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only %s 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: 'kids' is a handle array field; {{.*}}; memcpy, memmove and memset of handles take sizeof p->kids or n * sizeof p->kids[0] as their size)
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FAN = 16 };

struct CP_COMPACT bnode {
  int count;
  struct bnode *kids[FAN];
  long key;
};

static struct bnode *node(int c) {
  struct bnode *n = malloc(sizeof *n);
  memset(n->kids, 0, sizeof n->kids);
  n->count = c;
  n->key = 3L * c;
  return n;
}

static struct bnode *clone(const struct bnode *o) {
  struct bnode *n = malloc(sizeof *n);
  memcpy(n->kids, o->kids, sizeof o->kids);
  // CHECK: {{^ +}}memcpy(&({{.*}}kids)[0], &({{.*}}kids)[0], 16 * sizeof(({{.*}}kids)[0]));
  n->count = o->count;
  n->key = o->key;
  return n;
}

int main(void) {
  struct bnode *root = node(0), **kept = malloc(20000 * sizeof *kept);
  long sum = 0;
  for (int i = 0; i < FAN; i++)
    root->kids[i] = node(i + 1);
  for (int r = 0; r < 20000; r++) {
    struct bnode *c = clone(root);
    memmove(c->kids + 1, c->kids, (FAN - 1) * sizeof c->kids[0]);
    memcpy(root->kids, c->kids, sizeof(struct bnode *[FAN]));
    // CHECK: {{^ +}}memcpy(&({{.*}}kids)[0], &({{.*}}kids)[0], 16 * sizeof(({{.*}}kids)[0]));
    // All but one: the whole array less an element, and an element's
    // size written `sizeof *c->kids` (no decay: sizeof is not evaluated).
    memmove(c->kids, c->kids + 1, sizeof c->kids - sizeof c->kids[0]);
    // CHECK: {{^ +}}memmove(&({{.*}}kids)[0], &({{.*}}kids)[1], 15 * sizeof(({{.*}}kids)[0]));
    memmove(c->kids + 1, c->kids, (FAN - 1) * sizeof *c->kids);
    // CHECK: {{^ +}}memmove(&({{.*}}kids)[1], &({{.*}}kids)[0], ((FAN - 1)) * sizeof(({{.*}}kids)[1]));
#ifdef BAD
    memmove(c->kids + 1, c->kids, sizeof c->kids - 8);
#endif
    root->kids[0] = node(r);
    kept[r] = c;
    for (int i = 0; i < FAN; i++)
      sum += root->kids[i] ? root->kids[i]->count : -1;
  }
  for (int r = 0; r < 20000; r++)
    for (int i = 0; i < FAN; i++)
      sum += kept[r]->kids[i] ? kept[r]->kids[i]->key : 0;
  printf("sum %ld\n", sum);
  return 0;
}
