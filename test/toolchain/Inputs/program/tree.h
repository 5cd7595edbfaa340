/* A binary search tree of compact nodes, shared by the translation units of
 * the build tests (tree.c builds it, walk.c reads it, main.c drives). */
#ifndef TREE_H
#define TREE_H
#include <compactptr.h>

struct CP_COMPACT tnode {
  long key;
  int count : 24;
  unsigned mark : 8; /* low bits of the key: a bit-field gdb must find */
  struct tnode *left, *right;
};

struct tnode *tree_insert(struct tnode *root, long key);
long tree_sum(const struct tnode *t);
int tree_height(const struct tnode *t);
unsigned long tree_digest(const struct tnode *t, unsigned long h);
#endif
