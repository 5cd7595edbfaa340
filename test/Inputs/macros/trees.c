/* Macro shapes of tree code: accessor macros used as lvalues and
 * rvalues, macros inside macros, a statement macro in braces (not
 * do-while), an if-statement assertion macro, calls and allocations in
 * macro arguments, and a macro that names the field it accesses by ##.
 * Usage: trees [n] (default 20000).  Prints checksums. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct CP_COMPACT tnode {
  int key, size;
  struct tnode *left, *right;
} tnode_t;

#define KEY(t) ((*(t)).key)
#define SIZE(t) ((t) ? (t)->size : 0)
#define LEFT(t) ((t)->left)
#define RIGHT(t) ((t)->right)
#define KID(t, side) ((t)->side)
/* a statement macro in braces, as old programs write it */
#define MKNODE(t, k) { t = (tnode_t *)calloc(1, sizeof(tnode_t)); KEY(t) = (k); (t)->size = 1; }
/* an if-statement assertion macro (a dangling-else hazard in C, used as in
 * old code) */
#define ASSERT(n, c) if (!(c)) { printf("assertion %d failed\n", n); exit(3); }
#define FIX_SIZE(t) ((t)->size = 1 + SIZE(LEFT(t)) + SIZE(RIGHT(t)))
#define IS_LEAF(t) (LEFT(t) == NULL && RIGHT(t) == NULL)

static tnode_t *insert(tnode_t *t, int k) {
  if (t == NULL) {
    tnode_t *n;
    MKNODE(n, k);
    return n;
  }
  if (k < KEY(t))
    LEFT(t) = insert(LEFT(t), k);
  else
    KID(t, right) = insert(KID(t, right), k);
  FIX_SIZE(t);
  return t;
}

static int leaves(tnode_t *t) {
  if (!t)
    return 0;
  return IS_LEAF(t) ? 1 : leaves(LEFT(t)) + leaves(RIGHT(t));
}

static long depth_sum(tnode_t *t, int d) {
  return t ? d + depth_sum(LEFT(t), d + 1) + depth_sum(RIGHT(t), d + 1) : 0;
}

static void drop(tnode_t *t) {
  if (!t)
    return;
  drop(LEFT(t));
  drop(RIGHT(t));
  free(t);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 20000, i;
  tnode_t *root = NULL;
  unsigned x = 1;
  for (i = 0; i < n; i++) {
    x = x * 1103515245u + 12345u;
    root = insert(root, (int)((x >> 8) % 100000));
  }
  ASSERT(1, SIZE(root) == n);
  ASSERT(2, KEY(root) == KEY(root));
  printf("size %d leaves %d depth %ld rootkey %d\n", SIZE(root), leaves(root),
         depth_sum(root, 0), KEY(root));
  drop(root);
  return 0;
}
