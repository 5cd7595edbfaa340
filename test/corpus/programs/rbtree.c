/* rbtree.c - a red-black tree after the textbook (Cormen et al.).
 *
 * In the style of CLRS-derived red-black trees in C: one statically
 * allocated sentinel node stands for every leaf and for the root's parent
 * (`#define NIL (&sentinel)`), nodes carry parent pointers, rotations and
 * both fix-ups are written with the sentinel so no NULL tests are needed,
 * and a tree header struct is a local of main passed by address.
 * Delete uses transplant and may write the sentinel's parent field, as
 * the textbook allows.  Shapes: the address of a global node used as a
 * node pointer everywhere, a header struct of an inferred type as a local
 * whose address is taken, an enum colour field, an order-statistic count
 * in every node.
 *
 * Usage: rbtree [n]       (default 120000)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

enum color { RED, BLACK };

struct CP_COMPACT rbnode {
  int key;
  enum color color;
  int size;                     /* nodes in this subtree */
  struct rbnode *parent, *left, *right;
};

struct rbtree {
  struct rbnode *root;
  long count;
};

static struct rbnode sentinel = { 0, BLACK, 0, NULL, NULL, NULL };
#define NIL (&sentinel)

static void rb_init(struct rbtree *t)
{
  t->root = NIL;
  t->count = 0;
}

static void left_rotate(struct rbtree *t, struct rbnode *x)
{
  struct rbnode *y = x->right;

  x->right = y->left;
  if (y->left != NIL)
    y->left->parent = x;
  y->parent = x->parent;
  if (x->parent == NIL)
    t->root = y;
  else if (x == x->parent->left)
    x->parent->left = y;
  else
    x->parent->right = y;
  y->left = x;
  x->parent = y;
  y->size = x->size;
  x->size = x->left->size + x->right->size + 1;
}

static void right_rotate(struct rbtree *t, struct rbnode *x)
{
  struct rbnode *y = x->left;

  x->left = y->right;
  if (y->right != NIL)
    y->right->parent = x;
  y->parent = x->parent;
  if (x->parent == NIL)
    t->root = y;
  else if (x == x->parent->right)
    x->parent->right = y;
  else
    x->parent->left = y;
  y->right = x;
  x->parent = y;
  y->size = x->size;
  x->size = x->left->size + x->right->size + 1;
}

static void insert_fixup(struct rbtree *t, struct rbnode *z)
{
  while (z->parent->color == RED) {
    if (z->parent == z->parent->parent->left) {
      struct rbnode *y = z->parent->parent->right;

      if (y->color == RED) {
        z->parent->color = BLACK;
        y->color = BLACK;
        z->parent->parent->color = RED;
        z = z->parent->parent;
      } else {
        if (z == z->parent->right) {
          z = z->parent;
          left_rotate(t, z);
        }
        z->parent->color = BLACK;
        z->parent->parent->color = RED;
        right_rotate(t, z->parent->parent);
      }
    } else {
      struct rbnode *y = z->parent->parent->left;

      if (y->color == RED) {
        z->parent->color = BLACK;
        y->color = BLACK;
        z->parent->parent->color = RED;
        z = z->parent->parent;
      } else {
        if (z == z->parent->left) {
          z = z->parent;
          right_rotate(t, z);
        }
        z->parent->color = BLACK;
        z->parent->parent->color = RED;
        left_rotate(t, z->parent->parent);
      }
    }
  }
  t->root->color = BLACK;
}

static int rb_insert(struct rbtree *t, int key)
{
  struct rbnode *y = NIL, *x = t->root, *z;

  while (x != NIL) {
    y = x;
    if (key == x->key)
      return 0;
    x = key < x->key ? x->left : x->right;
  }
  z = malloc(sizeof(struct rbnode));
  z->key = key;
  z->parent = y;
  if (y == NIL)
    t->root = z;
  else if (key < y->key)
    y->left = z;
  else
    y->right = z;
  z->left = z->right = NIL;
  z->color = RED;
  z->size = 1;
  for (x = y; x != NIL; x = x->parent)
    x->size++;
  insert_fixup(t, z);
  t->count++;
  return 1;
}

static void transplant(struct rbtree *t, struct rbnode *u, struct rbnode *v)
{
  if (u->parent == NIL)
    t->root = v;
  else if (u == u->parent->left)
    u->parent->left = v;
  else
    u->parent->right = v;
  v->parent = u->parent;        /* may write NIL's parent: used by the fixup */
}

static struct rbnode *minimum(struct rbnode *x)
{
  while (x->left != NIL)
    x = x->left;
  return x;
}

static void delete_fixup(struct rbtree *t, struct rbnode *x)
{
  while (x != t->root && x->color == BLACK) {
    if (x == x->parent->left) {
      struct rbnode *w = x->parent->right;

      if (w->color == RED) {
        w->color = BLACK;
        x->parent->color = RED;
        left_rotate(t, x->parent);
        w = x->parent->right;
      }
      if (w->left->color == BLACK && w->right->color == BLACK) {
        w->color = RED;
        x = x->parent;
      } else {
        if (w->right->color == BLACK) {
          w->left->color = BLACK;
          w->color = RED;
          right_rotate(t, w);
          w = x->parent->right;
        }
        w->color = x->parent->color;
        x->parent->color = BLACK;
        w->right->color = BLACK;
        left_rotate(t, x->parent);
        x = t->root;
      }
    } else {
      struct rbnode *w = x->parent->left;

      if (w->color == RED) {
        w->color = BLACK;
        x->parent->color = RED;
        right_rotate(t, x->parent);
        w = x->parent->left;
      }
      if (w->right->color == BLACK && w->left->color == BLACK) {
        w->color = RED;
        x = x->parent;
      } else {
        if (w->left->color == BLACK) {
          w->right->color = BLACK;
          w->color = RED;
          left_rotate(t, w);
          w = x->parent->left;
        }
        w->color = x->parent->color;
        x->parent->color = BLACK;
        w->left->color = BLACK;
        right_rotate(t, x->parent);
        x = t->root;
      }
    }
  }
  x->color = BLACK;
}

static int rb_delete(struct rbtree *t, int key)
{
  struct rbnode *z = t->root, *y, *x, *p;
  enum color y_orig;

  while (z != NIL && z->key != key)
    z = key < z->key ? z->left : z->right;
  if (z == NIL)
    return 0;
  y = z;
  y_orig = y->color;
  if (z->left == NIL) {
    x = z->right;
    transplant(t, z, z->right);
  } else if (z->right == NIL) {
    x = z->left;
    transplant(t, z, z->left);
  } else {
    y = minimum(z->right);
    y_orig = y->color;
    x = y->right;
    if (y->parent == z) {
      x->parent = y;
    } else {
      transplant(t, y, y->right);
      y->right = z->right;
      y->right->parent = y;
    }
    transplant(t, z, y);
    y->left = z->left;
    y->left->parent = y;
    y->color = z->color;
    y->size = z->size;
  }
  for (p = x->parent; p != NIL; p = p->parent)
    p->size = p->left->size + p->right->size + 1;
  free(z);
  if (y_orig == BLACK)
    delete_fixup(t, x);
  t->count--;
  return 1;
}

/* the k-th smallest key, 1-based */
static int select_kth(struct rbnode *x, int k)
{
  while (x != NIL) {
    int r = x->left->size + 1;

    if (k == r)
      return x->key;
    if (k < r)
      x = x->left;
    else {
      k -= r;
      x = x->right;
    }
  }
  return -1;
}

static int black_height(struct rbnode *x, long *sum)
{
  int l, r;

  if (x == NIL)
    return 1;
  if (x->color == RED && (x->left->color == RED || x->right->color == RED))
    return -1000;
  l = black_height(x->left, sum);
  r = black_height(x->right, sum);
  *sum += x->key;
  if (l != r)
    return -1000;
  return l + (x->color == BLACK);
}

static void rb_free(struct rbnode *x)
{
  if (x == NIL)
    return;
  rb_free(x->left);
  rb_free(x->right);
  free(x);
}

int main(int argc, char *argv[])
{
  struct rbtree t;
  int n = argc > 1 ? atoi(argv[1]) : 120000, i;
  unsigned r = 12345;
  long ins = 0, del = 0, sum = 0, kth = 0;

  rb_init(&t);
  for (i = 0; i < n; i++) {
    r = r * 1103515245u + 12345u;
    ins += rb_insert(&t, (int)(r >> 4) % (4 * n));
  }
  for (i = 0; i < n; i++) {
    r = r * 1103515245u + 12345u;
    if (i % 3 == 0)
      del += rb_delete(&t, (int)(r >> 4) % (4 * n));
  }
  for (i = 1; i <= t.count; i += 97)
    kth += select_kth(t.root, i);
  printf("inserted %ld deleted %ld count %ld\n", ins, del, t.count);
  printf("black height %d", black_height(t.root, &sum));
  printf(" sum %ld kth %ld\n", sum, kth);
  rb_free(t.root);
  return 0;
}
