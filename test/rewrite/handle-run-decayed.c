// A run of handles named by its array rather than by an element's address:
// `memset(n->kids, 0, k * sizeof(n->kids[0]))` clearing a flexible array
// member of node pointers, `memmove(n->kids + i + 1, n->kids + i, ...)`
// shifting children, `memcpy(z->kids, y->kids + h, ...)` moving half of
// them to a new node.  The array decays to a pointer to its first handle
// (plus an index), so the compact form names that handle and measures one
// handle, as for `&n->kids[i]` (handle-run-memmove.c).  Before, each was
// refused: "'kids' is a handle array field; it cannot be used as a
// pointer".
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

enum { ORDER = 6 }; // children per full node

struct CP_COMPACT tnode {
  int n, leaf;
  long keys[ORDER - 1];
  struct tnode *kids[]; // ORDER when internal, none in a leaf
};

static struct tnode *node(int leaf) {
  int k = leaf ? 0 : ORDER;
  struct tnode *x = malloc(sizeof(*x) + k * sizeof(x->kids[0]));
  x->n = 0;
  x->leaf = leaf;
  memset(x->kids, 0, k * sizeof(x->kids[0]));
  // CHECK: memset(&({{.*}}kids)[0], 0, (k) * sizeof(({{.*}}kids)[0]));
  return x;
}

static void split(struct tnode *x, int i) {
  struct tnode *y = x->kids[i], *z = node(y->leaf);
  int h = ORDER / 2;
  z->n = h - 1;
  memcpy(z->keys, y->keys + h, (h - 1) * sizeof y->keys[0]);
  if (!y->leaf) {
    memcpy(z->kids, y->kids + h, h * sizeof(struct tnode *));
    // CHECK: memcpy(&({{.*}}kids)[0], &({{.*}}kids)[h], (h) * sizeof(({{.*}}kids)[0]));
    memset(y->kids + h, 0, sizeof y->kids[0] * h);
    // CHECK: memset(&({{.*}}kids)[h], 0, (h) * sizeof(({{.*}}kids)[h]));
  }
  y->n = h - 1;
  memmove(x->kids + i + 2, x->kids + (i + 1), (size_t)(x->n - i) * sizeof x->kids[0]);
  // CHECK: memmove(&({{.*}}kids)[i + 2], &({{.*}}kids)[(i + 1)], ((size_t)({{.*}}n) - i)) * sizeof(({{.*}}kids)[i + 2]));
  x->kids[i + 1] = z;
  memmove(&x->keys[i + 1], &x->keys[i], (size_t)(x->n - i) * sizeof x->keys[0]);
  x->keys[i] = y->keys[h - 1];
  x->n++;
}

static void insert_nonfull(struct tnode *x, long k) {
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
  if (x->kids[i]->n == ORDER - 1) {
    split(x, i);
    if (k > x->keys[i])
      i++;
  }
  insert_nonfull(x->kids[i], k);
}

static struct tnode *insert(struct tnode *root, long k) {
  if (root->n < ORDER - 1) {
    insert_nonfull(root, k);
    return root;
  }
  struct tnode *s = node(0);
  s->kids[0] = root;
  split(s, 0);
  insert_nonfull(s, k);
  return s;
}

static long walk(const struct tnode *x, long *count, long prev, int *sorted) {
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
  for (int i = x->n + 1; !x->leaf && i < ORDER; i++)
    *sorted &= x->kids[i] == NULL;
  return prev;
}

int main(void) {
  struct tnode *root = node(1);
  unsigned long h = 777;
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
