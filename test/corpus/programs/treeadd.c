/* treeadd.c - build a complete binary tree of integers and add it up.
 *
 * In the style of the Olden treeadd benchmark: a typedef'd node type, the
 * whole heap built by one recursive function called once from main, a
 * recursive reduction run several times, a "chatting" print macro and a
 * separate argument parser.  Added here: an iterative walk with an explicit
 * stack of node pointers (a malloc'd array), a mirror pass that swaps
 * children through temporaries, and a second tree grafted onto the first.
 *
 * Usage: treeadd [levels [iterations]]     (default 17 8)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

#define chatting printf

typedef struct CP_COMPACT tree {
  int val;
  struct tree *left;
  struct tree *right;
} tree_t;

static int levels = 17;
static int iters = 8;
static tree_t *root;              /* the global root, as in Olden */

static void dealwithargs(int argc, char *argv[])
{
  if (argc > 1)
    levels = atoi(argv[1]);
  if (argc > 2)
    iters = atoi(argv[2]);
  if (levels < 1 || levels > 24) {
    fprintf(stderr, "treeadd: levels must be 1..24\n");
    exit(1);
  }
}

/* TreeAlloc: a complete tree of the given height; values count down from
 * lo so every node has a distinct value. */
static tree_t *TreeAlloc(int level, int lo)
{
  tree_t *new;

  if (level == 0)
    return NULL;
  new = (tree_t *) malloc(sizeof(tree_t));
  if (new == NULL) {
    chatting("out of memory\n");
    exit(2);
  }
  new->val = lo;
  new->left = TreeAlloc(level - 1, 2 * lo);
  new->right = TreeAlloc(level - 1, 2 * lo + 1);
  return new;
}

static long TreeAdd(tree_t *t)
{
  if (t == NULL)
    return 0;
  else {
    long leftval, rightval;
    tree_t *tleft, *tright;
    long value;

    tleft = t->left;
    leftval = TreeAdd(tleft);
    tright = t->right;
    rightval = TreeAdd(tright);
    value = t->val;
    return leftval + rightval + value;
  }
}

/* Iterative preorder walk with a hand-made stack; weights values by depth
 * parity so a swap of children would show in the result. */
static long TreeWalk(tree_t *t, int height)
{
  tree_t **stack;
  int *depth;
  int sp = 0;
  long acc = 0;
  long pos = 0;

  stack = (tree_t **) malloc((height + 2) * sizeof(tree_t *));
  depth = (int *) malloc((height + 2) * sizeof(int));
  if (!stack || !depth)
    exit(2);
  if (t) {
    stack[sp] = t;
    depth[sp++] = 0;
  }
  while (sp > 0) {
    tree_t *n = stack[--sp];
    int d = depth[sp];

    pos++;
    acc += (d & 1 ? -1L : 1L) * n->val * (pos % 7 + 1);
    if (n->right) {
      stack[sp] = n->right;
      depth[sp++] = d + 1;
    }
    if (n->left) {
      stack[sp] = n->left;
      depth[sp++] = d + 1;
    }
  }
  free(depth);
  free(stack);
  return acc;
}

static void Mirror(tree_t *t)
{
  tree_t *tmp;

  if (!t)
    return;
  tmp = t->left;
  t->left = t->right;
  t->right = tmp;
  Mirror(t->left);
  Mirror(t->right);
}

static int CountLeaves(tree_t *t)
{
  if (!t)
    return 0;
  if (!t->left && !t->right)
    return 1;
  return CountLeaves(t->left) + CountLeaves(t->right);
}

/* Hang a copy of a small tree under every leaf at the given depth. */
static void Graft(tree_t *t, int depth, int small)
{
  if (!t)
    return;
  if (depth == 0) {
    if (!t->left)
      t->left = TreeAlloc(small, t->val);
    return;
  }
  Graft(t->left, depth - 1, small);
  Graft(t->right, depth - 1, small);
}

static void TreeFree(tree_t *t)
{
  if (!t)
    return;
  TreeFree(t->left);
  TreeFree(t->right);
  free(t);
}

int main(int argc, char *argv[])
{
  int i;
  long total = 0;

  dealwithargs(argc, argv);
  chatting("Treeadd with %d levels, %d iterations\n", levels, iters);
  root = TreeAlloc(levels, 1);
  chatting("About to enter TreeAdd()\n");
  for (i = 0; i < iters; i++)
    total += TreeAdd(root);
  chatting("Received result of %ld\n", total / iters);
  chatting("walk %ld\n", TreeWalk(root, levels));
  Mirror(root);
  chatting("walk after mirror %ld\n", TreeWalk(root, levels));
  Graft(root, levels - 1, 3);
  chatting("leaves %d sum %ld\n", CountLeaves(root), TreeAdd(root));
  chatting("walk after graft %ld\n", TreeWalk(root, levels + 3));
  TreeFree(root);
  root = NULL;
  return 0;
}
