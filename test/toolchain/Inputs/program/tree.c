/* Builds the tree: allocation and stores through compact pointers. */
#include "tree.h"
#include <stdlib.h>

static struct tnode *new_node(long key) {
  struct tnode *n = calloc(1, sizeof(struct tnode));
  n->key = key;
  n->count = 1;
  n->mark = (unsigned)key & 0xff;
  return n;
}

struct tnode *tree_insert(struct tnode *root, long key) {
  struct tnode *p = root;
  if (!root)
    return new_node(key);
  for (;;) {
    struct tnode *next;
    if (key == p->key) {
      p->count++;
      return root;
    }
    next = key < p->key ? p->left : p->right;
    if (!next) {
      if (key < p->key)
        p->left = new_node(key);
      else
        p->right = new_node(key);
      return root;
    }
    p = next;
  }
}
