/* avl.c - an AVL tree keyed by integers, the textbook way.
 *
 * In the style of the AVL trees of data-structure textbooks and of the
 * many small C libraries written from them: insert and delete are
 * recursive and take a pointer to the link that holds the subtree
 * (`struct avl_node **`), so a rotation rewrites the parent's link in
 * place and the root needs no special case; `&(*pp)->left` is passed down
 * the recursion.  Shapes: pointer-to-pointer into child fields, a height
 * macro that accepts NULL, a do { } while (0) check macro, deletion of a
 * node with two children by splicing out its in-order successor, an
 * invariant checker.
 *
 * Usage: avl [n]       (default 150000)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT avl_node {
  int key;
  int height;
  long count;
  struct avl_node *left;
  struct avl_node *right;
};

#define HEIGHT(n) ((n) ? (n)->height : 0)
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define CHECK(cond, what)                                        \
  do {                                                           \
    if (!(cond)) {                                               \
      fprintf(stderr, "avl: check failed: %s\n", what);          \
      exit(3);                                                   \
    }                                                            \
  } while (0)

static long rotations;

static void fix_height(struct avl_node *n)
{
  n->height = 1 + MAX(HEIGHT(n->left), HEIGHT(n->right));
}

static void rotate_right(struct avl_node **pp)
{
  struct avl_node *n = *pp, *l = n->left;

  n->left = l->right;
  l->right = n;
  fix_height(n);
  fix_height(l);
  *pp = l;
  rotations++;
}

static void rotate_left(struct avl_node **pp)
{
  struct avl_node *n = *pp, *r = n->right;

  n->right = r->left;
  r->left = n;
  fix_height(n);
  fix_height(r);
  *pp = r;
  rotations++;
}

static void rebalance(struct avl_node **pp)
{
  struct avl_node *n = *pp;
  int bal = HEIGHT(n->left) - HEIGHT(n->right);

  if (bal > 1) {
    if (HEIGHT(n->left->left) < HEIGHT(n->left->right))
      rotate_left(&n->left);
    rotate_right(pp);
  } else if (bal < -1) {
    if (HEIGHT(n->right->right) < HEIGHT(n->right->left))
      rotate_right(&n->right);
    rotate_left(pp);
  } else {
    fix_height(n);
  }
}

/* Returns 1 if a new node was added. */
static int avl_insert(struct avl_node **pp, int key)
{
  int added;

  if (*pp == NULL) {
    struct avl_node *n = malloc(sizeof *n);

    CHECK(n != NULL, "out of memory");
    n->key = key;
    n->height = 1;
    n->count = 1;
    n->left = n->right = NULL;
    *pp = n;
    return 1;
  }
  if (key == (*pp)->key) {
    (*pp)->count++;
    return 0;
  }
  if (key < (*pp)->key)
    added = avl_insert(&(*pp)->left, key);
  else
    added = avl_insert(&(*pp)->right, key);
  rebalance(pp);
  return added;
}

/* Unlink the smallest node of the subtree at *pp and return it. */
static struct avl_node *avl_pop_min(struct avl_node **pp)
{
  struct avl_node *min;

  if ((*pp)->left == NULL) {
    min = *pp;
    *pp = min->right;
    return min;
  }
  min = avl_pop_min(&(*pp)->left);
  rebalance(pp);
  return min;
}

static int avl_delete(struct avl_node **pp, int key)
{
  struct avl_node *n = *pp;
  int removed;

  if (n == NULL)
    return 0;
  if (key < n->key)
    removed = avl_delete(&n->left, key);
  else if (key > n->key)
    removed = avl_delete(&n->right, key);
  else {
    if (n->left == NULL || n->right == NULL) {
      *pp = n->left ? n->left : n->right;
    } else {
      struct avl_node *succ = avl_pop_min(&n->right);

      succ->left = n->left;
      succ->right = n->right;
      *pp = succ;
    }
    free(n);
    if (*pp)
      rebalance(pp);
    return 1;
  }
  rebalance(pp);
  return removed;
}

static struct avl_node *avl_find(struct avl_node *t, int key)
{
  while (t && t->key != key)
    t = key < t->key ? t->left : t->right;
  return t;
}

/* Checks order and balance; returns the height. */
static int avl_check(struct avl_node *t, long lo, long hi, long *nodes, long *sum)
{
  int hl, hr;

  if (!t)
    return 0;
  CHECK(t->key > lo && t->key < hi, "order");
  hl = avl_check(t->left, lo, t->key, nodes, sum);
  hr = avl_check(t->right, t->key, hi, nodes, sum);
  CHECK(hl - hr <= 1 && hr - hl <= 1, "balance");
  CHECK(t->height == 1 + MAX(hl, hr), "height");
  ++*nodes;
  *sum += (long)t->key * t->count;
  return t->height;
}

static void avl_free(struct avl_node *t)
{
  if (!t)
    return;
  avl_free(t->left);
  avl_free(t->right);
  free(t);
}

static unsigned int lcg = 1;
static int next_key(int range)
{
  lcg = lcg * 1664525u + 1013904223u;
  return (int)((lcg >> 8) % (unsigned)range);
}

int main(int argc, char **argv)
{
  struct avl_node *root = NULL;
  int n = argc > 1 ? atoi(argv[1]) : 150000;
  long added = 0, removed = 0, found = 0, nodes = 0, sum = 0;
  int i, h;

  for (i = 0; i < n; i++)
    added += avl_insert(&root, next_key(2 * n));
  for (i = 0; i < n; i++)
    found += avl_find(root, next_key(2 * n)) != NULL;
  for (i = 0; i < n / 2; i++)
    removed += avl_delete(&root, next_key(2 * n));
  h = avl_check(root, -1, 2L * n, &nodes, &sum);
  printf("added %ld found %ld removed %ld\n", added, found, removed);
  printf("nodes %ld height %d sum %ld rotations %ld\n", nodes, h, sum, rotations);
  avl_free(root);
  return 0;
}
