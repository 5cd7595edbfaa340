/* bitonic.c - bitonic sort on a binary tree that swaps values and child
 * pointers (after Olden bisort).
 *
 * A complete tree of 2^k - 1 nodes plus one spare value holds 2^k random
 * values.  bisort() sorts them into in-order sequence by recursive bitonic
 * merges; bimerge() exchanges whole subtrees by swapping child pointers.
 * The tree is built as 64 subtrees from a loop in main, then joined.
 * Each sort re-randomizes the values (a fresh permutation of 0..2^k-1),
 * then sorts, ascending and descending in turn.  Self-check: the in-order
 * sequence, then the spare, is monotonic and the value sum is unchanged.
 *
 * Node: 24 bytes native (malloc chunk 32), 12 bytes compact.
 * Usage: bitonic [k] [sorts]   defaults: 16 4 (quick); full: 22 1
 * Output: "ok bitonic n=... checksum=..." or "FAIL ..." with exit 1. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  int value;
  struct node *left, *right;
};

/* The merge's subtree exchanges assume distinct values (adaptive bitonic
 * sorting), so values are a pseudo-random permutation of 0..2^k-1: a
 * bijective mix of a counter, reseeded every round. */
static unsigned vbits, vcount, vseed = 0x243F6A88u;
static int next_value(void) {
  unsigned mask = (vbits >= 32 ? 0u : 1u << vbits) - 1u;
  unsigned x = (vcount++ ^ vseed) & mask;
  x = (x * 2654435769u) & mask;
  x ^= x >> (vbits / 2 + 1);
  x = (x * 0x85ebca6bu) & mask;
  x ^= x >> (vbits / 3 + 1);
  return (int)x;
}

static struct node *build(int levels) {
  struct node *n;
  if (levels == 0) return NULL;
  n = malloc(sizeof(struct node));
  if (!n) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  n->value = 0;
  n->left = build(levels - 1);
  n->right = build(levels - 1);
  return n;
}

/* Builds the top `levels` levels over the prebuilt subtrees sub[*next..]. */
static struct node *join(int levels, struct node **sub, long *next) {
  struct node *n;
  if (levels == 0) return sub[(*next)++];
  n = malloc(sizeof(struct node));
  if (!n) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  n->value = 0;
  n->left = join(levels - 1, sub, next);
  n->right = join(levels - 1, sub, next);
  return n;
}

static long long randomize(struct node *n) {
  long long s = 0;
  while (n) { /* left spine iteratively, right recursively */
    n->value = next_value();
    s += n->value + randomize(n->right);
    n = n->left;
  }
  return s;
}

static int bimerge(struct node *root, int spr_val, int dir) {
  int rv = root->value, lv, rightexchange, elementexchange;
  struct node *pl = root->left, *pr = root->right, *pll, *plr, *prl, *prr;
  rightexchange = (rv > spr_val) ^ dir;
  if (rightexchange) {
    root->value = spr_val;
    spr_val = rv;
  }
  while (pl) {
    lv = pl->value;
    pll = pl->left;
    plr = pl->right;
    rv = pr->value;
    prl = pr->left;
    prr = pr->right;
    elementexchange = (lv > rv) ^ dir;
    if (rightexchange) {
      if (elementexchange) {
        pl->value = rv;
        pr->value = lv;
        pl->right = prr;
        pr->right = plr;
        pl = pll;
        pr = prl;
      } else {
        pl = plr;
        pr = prr;
      }
    } else {
      if (elementexchange) {
        pl->value = rv;
        pr->value = lv;
        pl->left = prl;
        pr->left = pll;
        pl = plr;
        pr = prr;
      } else {
        pl = pll;
        pr = prl;
      }
    }
  }
  if (root->left) {
    root->value = bimerge(root->left, root->value, dir);
    spr_val = bimerge(root->right, spr_val, dir);
  }
  return spr_val;
}

static int bisort(struct node *root, int spr_val, int dir) {
  if (!root->left) {
    if ((root->value > spr_val) ^ dir) {
      int t = root->value;
      root->value = spr_val;
      spr_val = t;
    }
  } else {
    root->value = bisort(root->left, root->value, dir);
    spr_val = bisort(root->right, spr_val, !dir);
    spr_val = bimerge(root, spr_val, dir);
  }
  return spr_val;
}

struct walk {
  long long sum, count, bad;
  int last, dir;
  unsigned long long hash;
};

static void visit(struct walk *w, int v) {
  if (w->count > 0 && (w->dir ? v > w->last : v < w->last)) w->bad++;
  w->last = v;
  w->sum += v;
  w->count++;
  w->hash = w->hash * 1000003ULL + (unsigned)v;
}

static void inorder(const struct node *n, struct walk *w) {
  while (n) {
    inorder(n->left, w);
    visit(w, n->value);
    n = n->right;
  }
}

/* Hash of the values in pre-order: depends on the tree's shape, which the
 * child-pointer exchanges changed. */
static unsigned long long shape_hash(const struct node *n) {
  unsigned long long h = 0;
  while (n) {
    h = h * 31 + (unsigned)n->value + shape_hash(n->right) * 7;
    n = n->left;
  }
  return h;
}

static int check(const struct node *root, int spare, int dir, long long sum,
                 unsigned long long *hash) {
  struct walk w = {0, 0, 0, 0, dir, 0};
  inorder(root, &w);
  visit(&w, spare);
  *hash = *hash * 1000003ULL + w.hash + shape_hash(root);
  if (w.bad || w.sum != sum) {
    printf("FAIL bitonic dir=%d out_of_order=%lld sum=%lld expected=%lld\n",
           dir, w.bad, w.sum, sum);
    return 0;
  }
  return 1;
}

static void destroy(struct node *n) {
  if (!n) return;
  destroy(n->left);
  destroy(n->right);
  free(n);
}

int main(int argc, char **argv) {
  int k = argc > 1 ? atoi(argv[1]) : 16;
  int sorts = argc > 2 ? atoi(argv[2]) : 4, r;
  struct node *root;
  unsigned long long hash = 0;
  if (k < 2 || k > 26 || sorts < 1) {
    fprintf(stderr, "usage: bitonic [k 2..26] [sorts]\n");
    return 2;
  }
  { /* subtrees from a loop in main, then the top levels over them */
    int top = k > 6 ? 6 : k - 1;
    long i, nsub = 1L << top, used = 0;
    struct node **sub = malloc((size_t)nsub * sizeof(struct node *));
    if (!sub) return 2;
    for (i = 0; i < nsub; i++) sub[i] = build(k - top);
    root = join(top, sub, &used);
    free(sub);
  }
  vbits = (unsigned)k;
  for (r = 0; r < sorts; r++) {
    int spare, dir = r & 1;
    long long sum;
    vcount = 0; /* a fresh permutation before every sort */
    vseed = vseed * 1103515245u + 12345u;
    spare = next_value();
    sum = randomize(root) + spare;
    spare = bisort(root, spare, dir);
    if (!check(root, spare, dir, sum, &hash)) return 1;
  }
  destroy(root);
  printf("ok bitonic n=%ld sorts=%d checksum=%llu\n", 1L << k, sorts, hash);
  return 0;
}
