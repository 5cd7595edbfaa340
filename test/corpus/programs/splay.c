/* splay.c - top-down splay trees (Sleator and Tarjan).
 *
 * In the style of Sleator's widely copied top-down splay code: splay()
 * assembles the left and right trees under a header node that is a *local
 * struct* of the splay function (`Tree N; l = r = &N;`), so the first link
 * of each side is written into the local's fields and read back at the
 * end.  insert and delete splay first and then relink at the root.  A
 * frequency count per key and a size-limited cache (evict the smallest)
 * sit on top.  Shapes: a node struct used as a stack local whose address
 * flows into node fields, `typedef struct tree_node Tree` (a struct, not a
 * pointer), iteration-heavy pointer shuffling, a global size counter.
 *
 * Usage: splay [n]        (default 300000)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct CP_COMPACT tree_node Tree;
struct CP_COMPACT tree_node {
  Tree *left, *right;
  int item;
  int hits;
};

static int size;             /* number of nodes in the tree */

/* Simple top-down splay, not requiring i to be in the tree t. */
static Tree *splay(int i, Tree *t)
{
  Tree N, *l, *r, *y;

  if (t == NULL)
    return t;
  N.left = N.right = NULL;
  l = r = &N;

  for (;;) {
    if (i < t->item) {
      if (t->left == NULL)
        break;
      if (i < t->left->item) {
        y = t->left;                 /* rotate right */
        t->left = y->right;
        y->right = t;
        t = y;
        if (t->left == NULL)
          break;
      }
      r->left = t;                   /* link right */
      r = t;
      t = t->left;
    } else if (i > t->item) {
      if (t->right == NULL)
        break;
      if (i > t->right->item) {
        y = t->right;                /* rotate left */
        t->right = y->left;
        y->left = t;
        t = y;
        if (t->right == NULL)
          break;
      }
      l->right = t;                  /* link left */
      l = t;
      t = t->right;
    } else {
      break;
    }
  }
  l->right = t->left;                /* assemble */
  r->left = t->right;
  t->left = N.right;
  t->right = N.left;
  return t;
}

/* Insert i into the tree t, unless it's already there. */
static Tree *insert(int i, Tree *t)
{
  Tree *new;

  if (t != NULL) {
    t = splay(i, t);
    if (i == t->item) {
      t->hits++;
      return t;
    }
  }
  new = (Tree *)malloc(sizeof(Tree));
  if (new == NULL) {
    printf("Ran out of space\n");
    exit(1);
  }
  new->item = i;
  new->hits = 1;
  if (t == NULL) {
    new->left = new->right = NULL;
  } else if (i < t->item) {
    new->left = t->left;
    new->right = t;
    t->left = NULL;
  } else {
    new->right = t->right;
    new->left = t;
    t->right = NULL;
  }
  size++;
  return new;
}

/* Deletes i from the tree if it's there; returns the new tree. */
static Tree *delete(int i, Tree *t)
{
  Tree *x;

  if (t == NULL)
    return NULL;
  t = splay(i, t);
  if (i == t->item) {
    if (t->left == NULL) {
      x = t->right;
    } else {
      x = splay(i, t->left);
      x->right = t->right;
    }
    size--;
    free(t);
    return x;
  }
  return t;
}

/* Remove and return the smallest item (the cache's eviction). */
static Tree *delete_min(Tree *t, int *item, int *hits)
{
  Tree *x;

  t = splay(-1, t);            /* every item is >= 0: brings the minimum up */
  *item = t->item;
  *hits = t->hits;
  x = t->right;
  free(t);
  size--;
  return x;
}

static long walk(Tree *t, long *depthsum, int depth)
{
  long s = 0;

  while (t) {                  /* recurse left, iterate right */
    s += walk(t->left, depthsum, depth + 1) + (long)t->item * t->hits;
    *depthsum += depth;
    t = t->right;
    depth++;
  }
  return s;
}

static void freetree(Tree *t)
{
  while (t) {
    Tree *r = t->right;

    freetree(t->left);
    free(t);
    t = r;
  }
}

int main(int argc, char *argv[])
{
  Tree *root = NULL;
  int n = argc > 1 ? atoi(argv[1]) : 300000, i, limit;
  long evicted = 0, evicted_hits = 0, depthsum = 0, total;
  unsigned x = 2463534242u;

  limit = n / 3 + 1;
  for (i = 0; i < n; i++) {
    int key;

    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    /* skewed keys: small ones are hot */
    key = (int)(x % 1000003u) % ((x >> 20) % 4 == 0 ? 1000 : n);
    root = insert(key, root);
    if (i % 7 == 3)
      root = delete((int)(x >> 9) % n, root);
    if (size > limit) {
      int item, hits;

      root = delete_min(root, &item, &hits);
      evicted++;
      evicted_hits += hits + item % 13;
    }
  }
  total = walk(root, &depthsum, 0);
  printf("size %d evicted %ld (%ld)\n", size, evicted, evicted_hits);
  printf("weighted sum %ld depth sum %ld\n", total, depthsum);
  freetree(root);
  return 0;
}
