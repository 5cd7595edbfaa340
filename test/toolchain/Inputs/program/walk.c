/* Reads the tree: loads of fields and handles, recursion. */
#include "tree.h"

long tree_sum(const struct tnode *t) {
  return t ? t->key * t->count + tree_sum(t->left) + tree_sum(t->right) : 0;
}

int tree_height(const struct tnode *t) {
  int l, r;
  if (!t)
    return 0;
  l = tree_height(t->left);
  r = tree_height(t->right);
  return 1 + (l > r ? l : r);
}

unsigned long tree_digest(const struct tnode *t, unsigned long h) {
  if (!t)
    return h * 31u + 7u;
  h = tree_digest(t->left, h);
  h = h * 1000003u ^ (unsigned long)t->key ^ ((unsigned long)t->count << 20);
  return tree_digest(t->right, h);
}
