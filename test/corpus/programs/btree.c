/* btree.c - a B-tree of minimum degree T, after Cormen et al.
 *
 * In the style of the B-trees written from the CLRS pseudo-code: nodes
 * hold up to 2T-1 sorted keys and 2T child pointers in fixed arrays, a
 * leaf flag and a key count; insertion splits full nodes on the way down
 * (B-TREE-SPLIT-CHILD), so it never backs up; keys are shifted with
 * memmove, children with loops.  A range count, a search, an in-order
 * walk with an explicit stack of (node, index) pairs, and a bulk check of
 * the invariants sit on top.  Shapes: an array of child pointers and an
 * array of keys in one node, 1-based loops shifting pointers, a tree
 * header struct allocated on the heap, a stack of structs that hold node
 * pointers (a heap array of an inferred type).
 *
 * Usage: btree [n]       (default 300000)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T 6                      /* minimum degree */
#define MAXKEYS (2 * T - 1)

typedef struct CP_COMPACT btnode {
  int n;                         /* keys in use */
  int leaf;
  long key[MAXKEYS];
  struct btnode *c[2 * T];
} btnode;

typedef struct btree {
  btnode *root;
  long nodes;
  int height;
} btree;

static btnode *allocate_node(btree *t, int leaf)
{
  btnode *x = (btnode *)malloc(sizeof(btnode));

  if (!x) {
    perror("malloc");
    exit(2);
  }
  x->n = 0;
  x->leaf = leaf;
  t->nodes++;
  return x;
}

static btree *btree_create(void)
{
  btree *t = (btree *)malloc(sizeof(btree));

  t->nodes = 0;
  t->root = allocate_node(t, 1);
  t->height = 1;
  return t;
}

static btnode *btree_search(btnode *x, long k, int *idx)
{
  for (;;) {
    int i = 0;

    while (i < x->n && k > x->key[i])
      i++;
    if (i < x->n && k == x->key[i]) {
      *idx = i;
      return x;
    }
    if (x->leaf)
      return NULL;
    x = x->c[i];
  }
}

/* x is not full, y = x->c[i] is full: split y around its median */
static void split_child(btree *t, btnode *x, int i)
{
  btnode *y = x->c[i];
  btnode *z = allocate_node(t, y->leaf);
  int j;

  z->n = T - 1;
  memcpy(z->key, y->key + T, (T - 1) * sizeof(long));
  if (!y->leaf)
    for (j = 0; j < T; j++)
      z->c[j] = y->c[j + T];
  y->n = T - 1;
  for (j = x->n; j >= i + 1; j--)
    x->c[j + 1] = x->c[j];
  x->c[i + 1] = z;
  memmove(x->key + i + 1, x->key + i, (x->n - i) * sizeof(long));
  x->key[i] = y->key[T - 1];
  x->n++;
}

static void insert_nonfull(btree *t, btnode *x, long k)
{
  for (;;) {
    int i = x->n - 1;

    if (x->leaf) {
      while (i >= 0 && k < x->key[i]) {
        x->key[i + 1] = x->key[i];
        i--;
      }
      x->key[i + 1] = k;
      x->n++;
      return;
    }
    while (i >= 0 && k < x->key[i])
      i--;
    i++;
    if (x->c[i]->n == MAXKEYS) {
      split_child(t, x, i);
      if (k > x->key[i])
        i++;
    }
    x = x->c[i];
  }
}

static int btree_insert(btree *t, long k)
{
  btnode *r = t->root;
  int idx;

  if (btree_search(r, k, &idx))
    return 0;
  if (r->n == MAXKEYS) {
    btnode *s = allocate_node(t, 0);

    t->root = s;
    s->c[0] = r;
    split_child(t, s, 0);
    t->height++;
    insert_nonfull(t, s, k);
  } else {
    insert_nonfull(t, r, k);
  }
  return 1;
}

/* keys in [lo, hi] */
static long range_count(btnode *x, long lo, long hi)
{
  long cnt = 0;
  int i;

  for (i = 0; i < x->n; i++) {
    if (!x->leaf && x->key[i] >= lo)
      cnt += range_count(x->c[i], lo, hi);
    if (x->key[i] >= lo && x->key[i] <= hi)
      cnt++;
    if (x->key[i] > hi)
      return cnt;
  }
  if (!x->leaf)
    cnt += range_count(x->c[x->n], lo, hi);
  return cnt;
}

struct frame {
  btnode *node;
  int i;
};

/* in-order walk with an explicit stack; checks order, sums keys */
static long walk(btree *t, long *count, int *sorted)
{
  struct frame *stack = (struct frame *)malloc((t->height + 1) * sizeof(struct frame));
  int sp = 0;
  long sum = 0, prev = -1;

  *count = 0;
  *sorted = 1;
  stack[sp].node = t->root;
  stack[sp].i = 0;
  sp++;
  while (sp > 0) {
    struct frame *f = &stack[sp - 1];
    btnode *x = f->node;

    if (x->leaf) {
      int i;

      for (i = 0; i < x->n; i++) {
        if (x->key[i] <= prev)
          *sorted = 0;
        prev = x->key[i];
        sum += x->key[i] % 1000;
        ++*count;
      }
      sp--;
      continue;
    }
    if (f->i > 0 && f->i <= x->n) {
      long k = x->key[f->i - 1];

      if (k <= prev)
        *sorted = 0;
      prev = k;
      sum += k % 1000;
      ++*count;
    }
    if (f->i > x->n) {
      sp--;
      continue;
    }
    /* descend into child i; key i is visited when the walk comes back */
    stack[sp].node = x->c[f->i];
    stack[sp].i = 0;
    f->i++;
    sp++;
  }
  free(stack);
  return sum;
}

static void free_node(btnode *x)
{
  int i;

  if (!x->leaf)
    for (i = 0; i <= x->n; i++)
      free_node(x->c[i]);
  free(x);
}

int main(int argc, char **argv)
{
  btree *t = btree_create();
  long n = argc > 1 ? atol(argv[1]) : 300000, i, inserted = 0, hits = 0, count;
  unsigned long long r = 0x9E3779B97F4A7C15ULL;
  int sorted, idx;

  for (i = 0; i < n; i++) {
    r ^= r >> 12;
    r ^= r << 25;
    r ^= r >> 27;
    inserted += btree_insert(t, (long)((r * 2685821657736338717ULL) >> 40));
  }
  for (i = 0; i < n; i++)
    hits += btree_search(t->root, i * 37, &idx) != NULL;
  printf("inserted %ld, %ld nodes, height %d\n", inserted, t->nodes, t->height);
  printf("probe hits %ld, range [1e6,3e6] %ld\n", hits, range_count(t->root, 1000000, 3000000));
  printf("walk sum %ld", walk(t, &count, &sorted));
  printf(" count %ld sorted %d\n", count, sorted);
  free_node(t->root);
  free(t);
  return 0;
}
