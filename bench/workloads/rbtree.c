/* rbtree.c - red-black tree with parent links: insert, lookup, delete
 * (after CLRS, with NULL leaves).
 *
 * Inserts n keys (a bijective scramble of a counter), then runs rounds of
 * n/2 lookups (about half hits), n/8 deletes of the oldest keys and n/8
 * inserts of new ones, then deletes a quarter of the keys in scattered
 * order and frees the rest with a tree walk.
 * Self-check: lookups match window membership; after every round the
 * tree is verified (BST order, no red node with a red child, equal black
 * height on every path, parent links consistent, size).
 *
 * Node: 32 bytes native (malloc chunk 48), 20 bytes compact.
 * Usage: rbtree [n] [rounds]   defaults: 50000 3 (quick); full: 1500000 1
 * Output: "ok rbtree n=... height=..." or "FAIL ..." with exit 1. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

enum { RED, BLACK };

struct CP_COMPACT rb {
  unsigned key;
  int color;
  struct rb *left, *right, *parent;
};

static struct rb *root;
static long size;

static unsigned scramble(unsigned x) {
  x ^= x >> 16;
  x *= 0x21f0aaadu;
  x ^= x >> 15;
  x *= 0x735a2d97u;
  x ^= x >> 15;
  return x;
}

static unsigned long long rs = 0xFEEDFACECAFEBEEFULL;
static unsigned rnd(void) {
  rs ^= rs << 7;
  rs ^= rs >> 9;
  return (unsigned)rs;
}

static void rotate_left(struct rb *x) {
  struct rb *y = x->right;
  x->right = y->left;
  if (y->left) y->left->parent = x;
  y->parent = x->parent;
  if (!x->parent) root = y;
  else if (x == x->parent->left) x->parent->left = y;
  else x->parent->right = y;
  y->left = x;
  x->parent = y;
}

static void rotate_right(struct rb *x) {
  struct rb *y = x->left;
  x->left = y->right;
  if (y->right) y->right->parent = x;
  y->parent = x->parent;
  if (!x->parent) root = y;
  else if (x == x->parent->right) x->parent->right = y;
  else x->parent->left = y;
  y->right = x;
  x->parent = y;
}

static void insert(unsigned key) {
  struct rb *z = malloc(sizeof(struct rb)), *y = NULL, *x = root;
  if (!z) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  while (x) {
    y = x;
    x = key < x->key ? x->left : x->right;
  }
  z->key = key;
  z->parent = y;
  z->left = z->right = NULL;
  z->color = RED;
  if (!y) root = z;
  else if (key < y->key) y->left = z;
  else y->right = z;
  size++;
  while (z->parent && z->parent->color == RED) {
    struct rb *g = z->parent->parent;
    if (z->parent == g->left) {
      y = g->right;
      if (y && y->color == RED) {
        z->parent->color = BLACK;
        y->color = BLACK;
        g->color = RED;
        z = g;
      } else {
        if (z == z->parent->right) {
          z = z->parent;
          rotate_left(z);
        }
        z->parent->color = BLACK;
        z->parent->parent->color = RED;
        rotate_right(z->parent->parent);
      }
    } else {
      y = g->left;
      if (y && y->color == RED) {
        z->parent->color = BLACK;
        y->color = BLACK;
        g->color = RED;
        z = g;
      } else {
        if (z == z->parent->left) {
          z = z->parent;
          rotate_right(z);
        }
        z->parent->color = BLACK;
        z->parent->parent->color = RED;
        rotate_left(z->parent->parent);
      }
    }
  }
  root->color = BLACK;
}

static struct rb *find(unsigned key) {
  struct rb *x = root;
  while (x && x->key != key) x = key < x->key ? x->left : x->right;
  return x;
}

static int is_black(const struct rb *x) { return !x || x->color == BLACK; }

/* Replaces subtree u by v (v may be NULL). */
static void transplant(struct rb *u, struct rb *v) {
  if (!u->parent) root = v;
  else if (u == u->parent->left) u->parent->left = v;
  else u->parent->right = v;
  if (v) v->parent = u->parent;
}

/* Fixes a double-black at x (possibly NULL) whose parent is xp. */
static void delete_fixup(struct rb *x, struct rb *xp) {
  while (x != root && is_black(x)) {
    struct rb *w;
    if (x == xp->left) {
      w = xp->right;
      if (w->color == RED) {
        w->color = BLACK;
        xp->color = RED;
        rotate_left(xp);
        w = xp->right;
      }
      if (is_black(w->left) && is_black(w->right)) {
        w->color = RED;
        x = xp;
        xp = x->parent;
      } else {
        if (is_black(w->right)) {
          w->left->color = BLACK;
          w->color = RED;
          rotate_right(w);
          w = xp->right;
        }
        w->color = xp->color;
        xp->color = BLACK;
        w->right->color = BLACK;
        rotate_left(xp);
        x = root;
      }
    } else {
      w = xp->left;
      if (w->color == RED) {
        w->color = BLACK;
        xp->color = RED;
        rotate_right(xp);
        w = xp->left;
      }
      if (is_black(w->right) && is_black(w->left)) {
        w->color = RED;
        x = xp;
        xp = x->parent;
      } else {
        if (is_black(w->left)) {
          w->right->color = BLACK;
          w->color = RED;
          rotate_left(w);
          w = xp->left;
        }
        w->color = xp->color;
        xp->color = BLACK;
        w->left->color = BLACK;
        rotate_right(xp);
        x = root;
      }
    }
  }
  if (x) x->color = BLACK;
}

static void erase(struct rb *z) {
  struct rb *y = z, *x, *xp;
  int y_color = y->color;
  if (!z->left) {
    x = z->right;
    xp = z->parent;
    transplant(z, z->right);
  } else if (!z->right) {
    x = z->left;
    xp = z->parent;
    transplant(z, z->left);
  } else {
    for (y = z->right; y->left; y = y->left)
      ;
    y_color = y->color;
    x = y->right;
    if (y->parent == z) {
      xp = y;
    } else {
      xp = y->parent;
      transplant(y, y->right);
      y->right = z->right;
      y->right->parent = y;
    }
    transplant(z, y);
    y->left = z->left;
    y->left->parent = y;
    y->color = z->color;
  }
  free(z);
  size--;
  if (y_color == BLACK) delete_fixup(x, xp);
}

/* Returns the black height, or -1 on a violation; counts nodes. */
static int verify(const struct rb *x, const struct rb *parent, long *count,
                  int *height, int depth) {
  int l, r;
  if (!x) {
    if (depth > *height) *height = depth;
    return 1;
  }
  ++*count;
  if (x->parent != parent) return -1;
  if (x->color == RED && (!is_black(x->left) || !is_black(x->right))) return -1;
  if ((x->left && x->left->key >= x->key) ||
      (x->right && x->right->key <= x->key))
    return -1;
  l = verify(x->left, x, count, height, depth + 1);
  r = verify(x->right, x, count, height, depth + 1);
  if (l < 0 || l != r) return -1;
  return l + (x->color == BLACK);
}

static int check(const char *when, int *height) {
  long count = 0;
  int bh;
  *height = 0;
  bh = verify(root, NULL, &count, height, 0);
  if (bh < 0 || count != size || (root && root->color != BLACK)) {
    printf("FAIL rbtree invalid tree %s: black_height=%d count=%ld size=%ld\n",
           when, bh, count, size);
    return 0;
  }
  return 1;
}

static void destroy(struct rb *x) {
  while (x) {
    struct rb *l = x->left;
    destroy(x->right);
    free(x);
    x = l;
  }
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 50000, k;
  int rounds = argc > 2 ? atoi(argv[2]) : 3, r, height = 0, h0;
  unsigned lo = 0, hi = 0;
  long long found = 0;
  if (n < 8 || n > 100000000 || rounds < 0) {
    fprintf(stderr, "usage: rbtree [n 8..1e8] [rounds]\n");
    return 2;
  }
  for (; hi < (unsigned)n; hi++) insert(scramble(hi));
  if (!check("after build", &h0)) return 1;
  for (r = 0; r < rounds; r++) {
    for (k = 0; k < n / 2; k++) {
      unsigned c = lo + rnd() % ((unsigned)n * 2) - (unsigned)n / 2;
      struct rb *x = find(scramble(c));
      int inside = c - lo < hi - lo;
      if ((x != NULL) != inside) {
        printf("FAIL rbtree lookup counter=%u present=%d expected=%d\n", c,
               x != NULL, inside);
        return 1;
      }
      found += inside;
    }
    for (k = 0; k < n / 8; k++, lo++) {
      struct rb *x = find(scramble(lo));
      if (!x) {
        printf("FAIL rbtree delete of counter %u: missing\n", lo);
        return 1;
      }
      erase(x);
    }
    for (k = 0; k < n / 8; k++, hi++) insert(scramble(hi));
    if (!check("after round", &height)) return 1;
  }
  /* delete a quarter of the window in a scattered order: counter lo + k*step
   * mod m, with step coprime to m, visits each live counter once */
  {
    unsigned m = hi - lo, step = 2654435761u % m, a, b;
    for (;; step++) { /* make step coprime to m */
      for (a = m, b = step; b;) {
        unsigned t = a % b;
        a = b;
        b = t;
      }
      if (a == 1) break;
    }
    for (k = 0; k < (long)m / 4; k++) {
      unsigned c = lo + (unsigned)(((unsigned long long)k * step) % m);
      struct rb *x = find(scramble(c));
      if (!x) {
        printf("FAIL rbtree scattered delete of counter %u\n", c);
        return 1;
      }
      erase(x);
    }
    if (!check("after scattered deletes", &h0)) return 1;
  }
  destroy(root);
  root = NULL;
  size = 0;
  if (root || size) {
    printf("FAIL rbtree not empty: size=%ld\n", size);
    return 1;
  }
  printf("ok rbtree n=%ld rounds=%d found=%lld height=%d\n", n, rounds, found,
         height);
  return 0;
}
