/* The builder, in a translation unit of its own. */
#include "tree.h"
#include <stdlib.h>
struct tree *build(int depth) {
  if (depth == 0) return NULL;
  struct tree *t = malloc(sizeof *t);
  t->val = 1; t->left = build(depth - 1); t->right = build(depth - 1);
  return t;
}
