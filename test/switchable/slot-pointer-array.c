// An iterative AVL insertion keeps the path back to the root as a local
// array of pointers to handle fields (`path[depth++] = pp` with `pp =
// &(*pp)->l`), then rebalances through them.  The array's elements are slot
// pointers: a dereference picks the slot's width by its address, and in a
// checked function the array is a frame root of that kind, zeroed at its
// declaration, so a switch at the allocation between the descent and the
// rebalancing moves every element with the field it points at.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 %s -o %t.native
// RUN: %t.native > %t.expect
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Werror -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck %s
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co
// RUN: %t.co | diff %t.expect -
// RUN: %t | diff %t.expect -
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: grep -q 'switch to wide mode.*verified' %t.err
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  int key, height;
  struct node *l, *r;
};

static int height(struct node *n) { return n ? n->height : 0; }
static void fix(struct node *n) {
  int a = height(n->l), b = height(n->r);
  n->height = (a > b ? a : b) + 1;
}
static struct node *rotate_right(struct node *n) {
  struct node *l = n->l;
  n->l = l->r;
  l->r = n;
  fix(n);
  fix(l);
  return l;
}
static struct node *rotate_left(struct node *n) {
  struct node *r = n->r;
  n->r = r->l;
  r->l = n;
  fix(n);
  fix(r);
  return r;
}
static void rebalance(struct node **pp) {
  struct node *n = *pp;
  fix(n);
  int d = height(n->l) - height(n->r);
  if (d > 1) {
    if (height(n->l->l) < height(n->l->r))
      n->l = rotate_left(n->l);
    *pp = rotate_right(n);
  } else if (d < -1) {
    if (height(n->r->r) < height(n->r->l))
      n->r = rotate_right(n->r);
    *pp = rotate_left(n);
  }
}

static int insert(struct node **root, int key) {
  struct node **path[64];
  int depth = 0;
  struct node **pp = root;
  while (*pp) {
    if (key == (*pp)->key)
      return 0;
    path[depth++] = pp;
    pp = key < (*pp)->key ? &(*pp)->l : &(*pp)->r;
  }
  struct node *n = malloc(sizeof *n);
  n->key = key;
  n->height = 1;
  n->l = n->r = NULL;
  *pp = n;
  while (depth > 0)
    rebalance(path[--depth]);
  return 1;
}
// CHECK-LABEL: static int insert(struct node **root, int key) {
// CHECK-NEXT:  struct node **path[64] = {0}; {{.*}}cp__root(&cp__rt{{[0-9]+}}[0], (void *)&path, CP_ROOT_POINTER, 64, 0, "path"){{.*}}
// CHECK:       rebalance{{(__cp)?}}(path[--depth]);

static long checksum(struct node *n, int depth, int *max) {
  if (!n)
    return 0;
  if (depth > *max)
    *max = depth;
  int hl = height(n->l), hr = height(n->r);
  if (hl - hr > 1 || hr - hl > 1 || n->height != (hl > hr ? hl : hr) + 1)
    printf("unbalanced at %d\n", n->key);
  return checksum(n->l, depth + 1, max) + (long)n->key * (depth + 1) +
         checksum(n->r, depth + 1, max);
}

int main(void) {
  struct node *root = NULL;
  unsigned x = 12345;
  int added = 0, max = 0;
  for (int i = 0; i < 30000; i++) {
    x = x * 1103515245u + 12345u;
    added += insert(&root, (int)((x >> 8) % 120000));
  }
  long sum = checksum(root, 0, &max);
  printf("added %d, depth %d, checksum %ld\n", added, max, sum);
  return 0;
}
