/* sum.c - the extsum workload's summing function, in a translation unit
 * of its own (see main.c). */
#include "tree.h"

long tree_sum(const struct tree *t) {
  long s = 0;
  while (t) { /* down the right spine, recursing to the left */
    s += t->val + tree_sum(t->left);
    t = t->right;
  }
  return s;
}
