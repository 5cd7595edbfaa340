/* bintree.c - binary tree build and sum (after Olden treeadd).
 *
 * Builds a complete binary tree of 2^depth - 1 nodes: main's loop builds
 * the 2^t subtrees below the top t levels (t <= 6) depth first, one call
 * each, then joins them under the top levels, so allocation happens across
 * many iterations of a loop in main (where a switchable build can switch).
 * Then sums the tree recursively `passes` times and once more after adding
 * 3 to every key.  Self-check: each pass equals the closed form.
 *
 * Node: 24 bytes native (malloc chunk 32), 12 bytes compact.
 * Usage: bintree [depth] [passes]   defaults: 18 20 (quick); full: 22 100
 * Output: "ok bintree nodes=... sum=..." or "FAIL ..." with exit 1. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  int key;
  struct node *left, *right;
};

static struct node *build(int depth, int *next_key) {
  struct node *n;
  if (depth == 0) return NULL;
  n = malloc(sizeof(struct node));
  if (!n) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  n->key = (*next_key)++;
  n->left = build(depth - 1, next_key);
  n->right = build(depth - 1, next_key);
  return n;
}

/* Builds the top `levels` levels over the prebuilt subtrees sub[*next..]. */
static struct node *join(int levels, struct node **sub, long *next,
                         int *next_key) {
  struct node *n;
  if (levels == 0) return sub[(*next)++];
  n = malloc(sizeof(struct node));
  if (!n) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  n->key = (*next_key)++;
  n->left = join(levels - 1, sub, next, next_key);
  n->right = join(levels - 1, sub, next, next_key);
  return n;
}

static long long leaf_visits; /* a side effect, so passes are not folded */

static long long sum(const struct node *n) {
  if (!n) return 0;
  if (!n->left) leaf_visits++;
  return n->key + sum(n->left) + sum(n->right);
}

/* Adds `delta` to every key, iteratively down the left spine. */
static void bump(struct node *n, int delta) {
  while (n) {
    n->key += delta;
    bump(n->right, delta);
    n = n->left;
  }
}

static void destroy(struct node *n) {
  if (!n) return;
  destroy(n->left);
  destroy(n->right);
  free(n);
}

int main(int argc, char **argv) {
  int depth = argc > 1 ? atoi(argv[1]) : 18;
  int passes = argc > 2 ? atoi(argv[2]) : 20;
  int next_key = 0, p;
  long long nodes, expect, got = 0, total = 0;
  struct node *root;
  if (depth < 1 || depth > 28 || passes < 1) {
    fprintf(stderr, "usage: bintree [depth 1..28] [passes]\n");
    return 2;
  }
  {
    int top = depth > 6 ? 6 : depth - 1;
    long i, nsub = 1L << top, used = 0;
    struct node **sub = malloc((size_t)nsub * sizeof(struct node *));
    if (!sub) return 2;
    for (i = 0; i < nsub; i++) sub[i] = build(depth - top, &next_key);
    root = join(top, sub, &used, &next_key);
    free(sub);
  }
  nodes = next_key;
  expect = nodes * (nodes - 1) / 2;
  for (p = 0; p < passes; p++) {
    got = sum(root);
    if (got != expect) {
      printf("FAIL bintree pass=%d sum=%lld expected=%lld\n", p, got, expect);
      return 1;
    }
    total += got;
  }
  if (leaf_visits != (long long)passes * ((nodes + 1) / 2)) {
    printf("FAIL bintree leaf visits=%lld\n", leaf_visits);
    return 1;
  }
  bump(root, 3);
  got = sum(root);
  if (got != expect + 3 * nodes) {
    printf("FAIL bintree after bump sum=%lld expected=%lld\n", got,
           expect + 3 * nodes);
    return 1;
  }
  destroy(root);
  printf("ok bintree nodes=%lld passes=%d sum=%lld total=%lld\n", nodes,
         passes, got, total);
  return 0;
}
