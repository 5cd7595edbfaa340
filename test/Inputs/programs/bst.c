/* bst.c - unbalanced binary search tree with parent links: insert,
 * lookup, delete of leaves, one-child and two-child nodes (successor
 * splice), in-order walk both recursively and iteratively through
 * parent links, height, and a full free.
 * Usage: bst [n]   (default 2000) */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT tnode {
  int key;
  int count;
  struct tnode *left, *right, *parent;
};

static unsigned long long s = 88172645463325252ULL;
static unsigned next_rand(void) {
  s ^= s << 13;
  s ^= s >> 7;
  s ^= s << 17;
  return (unsigned)s;
}

static struct tnode *insert(struct tnode **root, int key) {
  struct tnode *p = *root, *parent = NULL, *n;
  while (p) {
    if (key == p->key) {
      p->count++;
      return p;
    }
    parent = p;
    p = key < p->key ? p->left : p->right;
  }
  n = calloc(1, sizeof(struct tnode));
  if (!n) exit(2);
  n->key = key;
  n->count = 1;
  n->parent = parent;
  if (!parent) *root = n;
  else if (key < parent->key) parent->left = n;
  else parent->right = n;
  return n;
}

static struct tnode *find(struct tnode *p, int key) {
  while (p && p->key != key) p = key < p->key ? p->left : p->right;
  return p;
}

static struct tnode *minimum(struct tnode *p) {
  while (p->left) p = p->left;
  return p;
}

static struct tnode *successor(struct tnode *p) {
  struct tnode *q;
  if (p->right) return minimum(p->right);
  q = p->parent;
  while (q && p == q->right) {
    p = q;
    q = q->parent;
  }
  return q;
}

/* Replaces subtree u by subtree v in u's parent. */
static void transplant(struct tnode **root, struct tnode *u, struct tnode *v) {
  if (!u->parent) *root = v;
  else if (u == u->parent->left) u->parent->left = v;
  else u->parent->right = v;
  if (v) v->parent = u->parent;
}

static void delete_node(struct tnode **root, struct tnode *z) {
  if (!z->left) transplant(root, z, z->right);
  else if (!z->right) transplant(root, z, z->left);
  else {
    struct tnode *y = minimum(z->right);
    if (y->parent != z) {
      transplant(root, y, y->right);
      y->right = z->right;
      y->right->parent = y;
    }
    transplant(root, z, y);
    y->left = z->left;
    y->left->parent = y;
  }
  free(z);
}

static int height(const struct tnode *p) {
  int l, r;
  if (!p) return 0;
  l = height(p->left);
  r = height(p->right);
  return 1 + (l > r ? l : r);
}

static void walk(const struct tnode *p, unsigned long *h, long *n) {
  if (!p) return;
  walk(p->left, h, n);
  *h = *h * 131 + (unsigned long)p->key * (unsigned long)p->count;
  ++*n;
  walk(p->right, h, n);
}

static void free_tree(struct tnode *p) {
  if (!p) return;
  free_tree(p->left);
  free_tree(p->right);
  free(p);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : 2000;
  struct tnode *root = NULL, *p;
  unsigned long h1 = 0, h2 = 0;
  long i, cnt1 = 0, cnt2 = 0, found = 0, deleted = 0, ordered = 1;
  int range;
  if (n < 4) n = 4;
  range = (int)(n * 2);

  for (i = 0; i < n; i++) insert(&root, (int)(next_rand() % (unsigned)range));
  walk(root, &h1, &cnt1);
  printf("built distinct=%ld hash=%lu height=%d\n", cnt1, h1, height(root));

  for (i = 0; i < n; i++)
    if (find(root, (int)(next_rand() % (unsigned)range))) found++;
  printf("lookups found=%ld\n", found);

  for (i = 0; i < n; i++) {
    p = find(root, (int)(next_rand() % (unsigned)range));
    if (p) {
      delete_node(&root, p);
      deleted++;
    }
  }
  /* iterative in-order walk through parent links */
  if (root) {
    int last = -1;
    for (p = minimum(root); p; p = successor(p)) {
      if (p->key <= last) ordered = 0;
      last = p->key;
      h2 = h2 * 131 + (unsigned long)p->key * (unsigned long)p->count;
      cnt2++;
    }
  }
  h1 = 0;
  cnt1 = 0;
  walk(root, &h1, &cnt1);
  printf("deleted=%ld left=%ld hash=%lu same_walks=%d ordered=%ld height=%d\n",
         deleted, cnt2, h2, h1 == h2 && cnt1 == cnt2, ordered, height(root));
  printf("root parent null=%d\n", root ? root->parent == NULL : 1);
  free_tree(root);
  return 0;
}
