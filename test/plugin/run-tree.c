// A binary search tree with parent links and deletes, built natively and
// with the plugin (compact-only and wide): identical output; the generated
// code is warning-free under -Wall -Wextra -Wshadow.
// REQUIRES: plugin
// RUN: %clang %cflags -O2 %s -o %t.native && %t.native > %t.native.out
// RUN: %clang %cflags -O2 -Wall -Wextra -Wshadow -Werror -fplugin=%plugin %s %runtime -o %t.cp && %t.cp > %t.cp.out
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=wide %s %runtime -o %t.wide && %t.wide > %t.wide.out
// RUN: diff %t.native.out %t.cp.out
// RUN: diff %t.native.out %t.wide.out
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT tree {
  long key;
  struct tree *left, *right, *up;
};

static struct tree *insert(struct tree *root, long key) {
  struct tree *n = calloc(1, sizeof(struct tree)), *cur = root, *par = NULL;
  n->key = key;
  if (!root)
    return n;
  while (cur) {
    par = cur;
    cur = key < cur->key ? cur->left : cur->right;
  }
  if (key < par->key)
    par->left = n;
  else
    par->right = n;
  n->up = par;
  return root;
}

static struct tree *min_of(struct tree *t) {
  while (t->left)
    t = t->left;
  return t;
}

static void replace(struct tree **root, struct tree *u, struct tree *v) {
  if (!u->up)
    *root = v;
  else if (u == u->up->left)
    u->up->left = v;
  else
    u->up->right = v;
  if (v)
    v->up = u->up;
}

static void delete(struct tree **root, struct tree *z) {
  if (!z->left)
    replace(root, z, z->right);
  else if (!z->right)
    replace(root, z, z->left);
  else {
    struct tree *y = min_of(z->right);
    if (y->up != z) {
      replace(root, y, y->right);
      y->right = z->right;
      y->right->up = y;
    }
    replace(root, z, y);
    y->left = z->left;
    y->left->up = y;
  }
  free(z);
}

static struct tree *find(struct tree *t, long key) {
  while (t && t->key != key)
    t = key < t->key ? t->left : t->right;
  return t;
}

static long walk(struct tree *t, int depth, long *maxd) {
  if (!t)
    return 0;
  if (depth > *maxd)
    *maxd = depth;
  return t->key + walk(t->left, depth + 1, maxd) + walk(t->right, depth + 1, maxd);
}

int main(void) {
  struct tree *root = NULL;
  unsigned x = 12345;
  for (int i = 0; i < 5000; i++) {
    x = x * 1103515245u + 12345u;
    long k = (x >> 8) % 100000;
    if (!find(root, k))
      root = insert(root, k);
  }
  for (long k = 0; k < 100000; k += 3) {
    struct tree *t = find(root, k);
    if (t)
      delete(&root, t);
  }
  long maxd = 0;
  long s = walk(root, 0, &maxd);
  printf("sum %ld depth %ld\n", s, maxd);
  while (root)
    delete(&root, root);
  return 0;
}
