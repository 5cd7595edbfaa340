/* A constructor of its own file, declared in tree.h without annotation. */
#include "tree.h"
#include <stdlib.h>

struct tree *tree_new(int val) {
  struct tree *t = malloc(sizeof *t);
  t->val = val;
  t->left = t->right = NULL;
  return t;
}
