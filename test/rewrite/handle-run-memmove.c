// A run of handles moved, copied or cleared by the bytes: a B-tree node
// shifting its children to make room (`memmove(&x->kids[i + 2],
// &x->kids[i + 1], n * sizeof x->kids[0])`), a split copying half of them
// to a new node, and the vacated slots cleared.  Each is the same number
// of slots in either layout, so the compact form names the handles and
// measures one of them.  Before, each was refused (the address of a
// handle field converted to 'void *').  A run whose size is not a count
// of slots, or that moves handles to another type's, stays refused
// (diagnostics/slot-pointer-escape.c).
// RUN: %rewrite --main-only %s -- %cflags -fplugin-arg-compactptr-mode=compact-only > %t.c
// RUN: FileCheck %s < %t.c
// RUN: %clang %cflags -O2 %s -o %t.native && %t.native > %t.native.out
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co && %t.co | diff %t.native.out -
// RUN: %clang %cflags -O0 -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co0 && %t.co0 | diff %t.native.out -
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=wide %s %runtime -o %t.wide && %t.wide | diff %t.native.out -
// RUN: %clang %cflags -O2 -fplugin=%plugin %s %runtime -o %t.sw
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t.sw > %t.sw.out 2> %t.sw.err
// RUN: diff %t.native.out %t.sw.out
// RUN: grep -q "switch to wide mode (high-water mark).*verified" %t.sw.err
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { T = 4 }; // minimum degree: 2T - 1 keys, 2T children

struct CP_COMPACT bnode {
  int n, leaf;
  long keys[2 * T - 1];
  struct bnode *kids[2 * T];
};

static struct bnode *node(int leaf) {
  struct bnode *x = calloc(1, sizeof *x);
  x->leaf = leaf;
  return x;
}

static void split(struct bnode *x, int i) {
  struct bnode *y = x->kids[i], *z = node(y->leaf);
  z->n = T - 1;
  memcpy(z->keys, y->keys + T, (T - 1) * sizeof y->keys[0]);
  if (!y->leaf) {
    memcpy(&z->kids[0], &y->kids[T], T * sizeof(struct bnode *));
    // CHECK: memcpy(&({{.*}}kids)[0]), &({{.*}}kids)[T]), (T) * sizeof(({{.*}}kids)[0])));
    memset(&y->kids[T], 0, sizeof y->kids[0] * T);
    // CHECK: memset(&({{.*}}kids)[T]), 0, (T) * sizeof(({{.*}}kids)[T])));
  }
  y->n = T - 1;
  memmove(&x->kids[i + 2], &x->kids[i + 1], (size_t)(x->n - i) * sizeof x->kids[0]);
  // CHECK: memmove(&({{.*}}kids)[i + 2]), &({{.*}}kids)[i + 1]), ((size_t)({{.*}}n) - i)) * sizeof(({{.*}}kids)[i + 2])));
  x->kids[i + 1] = z;
  memmove(&x->keys[i + 1], &x->keys[i], (size_t)(x->n - i) * sizeof x->keys[0]);
  x->keys[i] = y->keys[T - 1];
  x->n++;
}

static void insert_nonfull(struct bnode *x, long k) {
  int i = x->n - 1;
  if (x->leaf) {
    while (i >= 0 && k < x->keys[i]) {
      x->keys[i + 1] = x->keys[i];
      i--;
    }
    x->keys[i + 1] = k;
    x->n++;
    return;
  }
  while (i >= 0 && k < x->keys[i])
    i--;
  i++;
  if (x->kids[i]->n == 2 * T - 1) {
    split(x, i);
    if (k > x->keys[i])
      i++;
  }
  insert_nonfull(x->kids[i], k);
}

static struct bnode *insert(struct bnode *root, long k) {
  if (root->n < 2 * T - 1) {
    insert_nonfull(root, k);
    return root;
  }
  struct bnode *s = node(0);
  s->kids[0] = root;
  split(s, 0);
  insert_nonfull(s, k);
  return s;
}

static long walk(const struct bnode *x, long *count, long prev, int *sorted) {
  for (int i = 0; i <= x->n; i++) {
    if (!x->leaf)
      prev = walk(x->kids[i], count, prev, sorted);
    if (i < x->n) {
      *sorted &= prev <= x->keys[i];
      prev = x->keys[i];
      ++*count;
    }
  }
  // Every slot past the last child is null: the clears above left none.
  for (int i = x->n + 1; i < 2 * T; i++)
    *sorted &= x->kids[i] == NULL;
  return prev;
}

int main(void) {
  struct bnode *root = node(1);
  unsigned long h = 12345;
  for (int i = 0; i < 30000; i++) {
    h = h * 6364136223846793005ul + 1442695040888963407ul;
    root = insert(root, (long)(h >> 33) % 1000003);
  }
  long count = 0;
  int sorted = 1;
  walk(root, &count, -1, &sorted);
  printf("keys %ld sorted %d\n", count, sorted);
  return 0;
}
