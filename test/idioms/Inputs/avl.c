/* An AVL tree whose insert and delete recurse on `struct node **`: each
 * level passes the address of the child's handle field down
 * (`insert(&(*pp)->left, key)`) and rebalances through it on the way up.
 * Every level polls for the switch on the way up, before it rebalances,
 * so with a small arena the switch happens (right after the allocation
 * at the leaf) with a whole path of such pointers live in the recursion;
 * the plugin's build says so on stderr ("switched inside a walk").
 * Usage: avl [keys]                     (default 40000) */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  int key, height;
  struct node *left, *right;
};

static int switched_in_walk;

static void step(void) {
#ifdef COMPACTPTR_RUNTIME
  int was = cp_is_compact();
  cp_safepoint();
  if (was && !cp_is_compact())
    switched_in_walk = 1;
#else
  cp_safepoint();
#endif
}

static int height(struct node *n) { return n ? n->height : 0; }

static void update(struct node *n) {
  int l = height(n->left), r = height(n->right);
  n->height = (l > r ? l : r) + 1;
}

static void rotate_right(struct node **pp) {
  struct node *a = *pp, *b = a->left;
  a->left = b->right;
  b->right = a;
  update(a);
  update(b);
  *pp = b;
}

static void rotate_left(struct node **pp) {
  struct node *a = *pp, *b = a->right;
  a->right = b->left;
  b->left = a;
  update(a);
  update(b);
  *pp = b;
}

static void rebalance(struct node **pp) {
  struct node *n = *pp;
  update(n);
  int bal = height(n->left) - height(n->right);
  if (bal > 1) {
    if (height(n->left->left) < height(n->left->right))
      rotate_left(&n->left);
    rotate_right(pp);
  } else if (bal < -1) {
    if (height(n->right->right) < height(n->right->left))
      rotate_right(&n->right);
    rotate_left(pp);
  }
}

static int insert(struct node **pp, int key) {
  int added;
  if (!*pp) {
    *pp = calloc(1, sizeof **pp);
    (*pp)->key = key;
    (*pp)->height = 1;
    return 1;
  }
  if (key == (*pp)->key)
    return 0;
  added = insert(key < (*pp)->key ? &(*pp)->left : &(*pp)->right, key);
  step();
  rebalance(pp);
  return added;
}

/* Unlinks the smallest node below *pp and returns it. */
static struct node *take_min(struct node **pp) {
  struct node *m;
  if (!(*pp)->left) {
    m = *pp;
    *pp = m->right;
    return m;
  }
  m = take_min(&(*pp)->left);
  rebalance(pp);
  return m;
}

static int delete(struct node **pp, int key) {
  int gone;
  if (!*pp)
    return 0;
  if (key < (*pp)->key)
    gone = delete(&(*pp)->left, key);
  else if (key > (*pp)->key)
    gone = delete(&(*pp)->right, key);
  else {
    struct node *dead = *pp;
    if (!dead->left || !dead->right) {
      *pp = dead->left ? dead->left : dead->right;
    } else {
      struct node *m = take_min(&dead->right);
      m->left = dead->left;
      m->right = dead->right;
      *pp = m;
    }
    free(dead);
    gone = 1;
  }
  step();
  if (*pp)
    rebalance(pp);
  return gone;
}

static long walk(struct node *t, int depth, int *maxdepth) {
  if (!t)
    return 0;
  if (depth > *maxdepth)
    *maxdepth = depth;
  return t->key % 1000 + walk(t->left, depth + 1, maxdepth) +
         walk(t->right, depth + 1, maxdepth);
}

static void free_all(struct node *t) {
  if (!t)
    return;
  free_all(t->left);
  free_all(t->right);
  free(t);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 40000, maxdepth = 0;
  long added = 0, gone = 0;
  struct node *root = NULL;
  for (int i = 0; i < n; i++)
    added += insert(&root, (int)((i * 2654435761u) % 100003));
  for (int i = 0; i < n; i += 3)
    gone += delete(&root, (int)((i * 2654435761u) % 100003));
  long sum = walk(root, 1, &maxdepth);
  printf("%ld added, %ld deleted, checksum %ld, height %d (root height %d)\n",
         added, gone, sum, maxdepth, height(root));
  if (switched_in_walk)
    fprintf(stderr, "switched inside a walk\n");
  free_all(root);
  return 0;
}
