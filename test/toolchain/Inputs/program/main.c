/* Inserts pseudo-random keys, switches to wide mode half way (a no-op in
 * the native build) and prints what the tree holds. */
#include "tree.h"
#include <stdio.h>

static struct tnode *root;

int main(void) {
  unsigned long x = 12345;
  int i;
  for (i = 0; i < 20000; i++) {
    x = x * 6364136223846793005ul + 1442695040888963407ul;
    root = tree_insert(root, (long)(x >> 44));
    if (i == 10000) {
      printf("half: sum=%ld height=%d\n", tree_sum(root), tree_height(root));
      cp_switch_to_wide();
    }
  }
  printf("sum=%ld height=%d digest=%lx\n", tree_sum(root), tree_height(root),
         tree_digest(root, 1));
  return 0;
}
