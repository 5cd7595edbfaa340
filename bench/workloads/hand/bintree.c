/* hand/bintree.c - bintree.c written by hand with 32-bit indices into a
 * typed pool (pool.h) instead of pointers: the baseline for what
 * compactptr automates.  Same algorithm and output as ../bintree.c.
 *
 * Node: 12 bytes (an int and two uint32_t indices).
 * Usage and output: as ../bintree.c. */
#include "pool.h"

struct node {
  int key;
  uint32_t left, right;
};
HAND_POOL(nodes, struct node, left)

static uint32_t build(int depth, int *next_key) {
  uint32_t n;
  if (depth == 0) return 0;
  n = nodes_alloc();
  nodes[n].key = (*next_key)++;
  { /* the pool may move while the children are built */
    uint32_t l = build(depth - 1, next_key);
    nodes[n].left = l;
  }
  {
    uint32_t r = build(depth - 1, next_key);
    nodes[n].right = r;
  }
  return n;
}

/* Builds the top `levels` levels over the prebuilt subtrees sub[*next..]. */
static uint32_t join(int levels, uint32_t *sub, long *next, int *next_key) {
  uint32_t n;
  if (levels == 0) return sub[(*next)++];
  n = nodes_alloc();
  nodes[n].key = (*next_key)++;
  {
    uint32_t l = join(levels - 1, sub, next, next_key);
    nodes[n].left = l;
  }
  {
    uint32_t r = join(levels - 1, sub, next, next_key);
    nodes[n].right = r;
  }
  return n;
}

static long long leaf_visits; /* a side effect, so passes are not folded */

static long long sum(uint32_t n) {
  const struct node *p;
  if (!n) return 0;
  p = &nodes[n];
  if (!p->left) leaf_visits++;
  return p->key + sum(p->left) + sum(p->right);
}

/* Adds `delta` to every key, iteratively down the left spine. */
static void bump(uint32_t n, int delta) {
  while (n) {
    nodes[n].key += delta;
    bump(nodes[n].right, delta);
    n = nodes[n].left;
  }
}

static void destroy(uint32_t n) {
  if (!n) return;
  destroy(nodes[n].left);
  destroy(nodes[n].right);
  nodes_free(n);
}

int main(int argc, char **argv) {
  int depth = argc > 1 ? atoi(argv[1]) : 18;
  int passes = argc > 2 ? atoi(argv[2]) : 20;
  int next_key = 0, p;
  long long nodes_n, expect, got = 0, total = 0;
  uint32_t root;
  if (depth < 1 || depth > 28 || passes < 1) {
    fprintf(stderr, "usage: bintree [depth 1..28] [passes]\n");
    return 2;
  }
  {
    int top = depth > 6 ? 6 : depth - 1;
    long i, nsub = 1L << top, used = 0;
    uint32_t *sub = malloc((size_t)nsub * sizeof *sub);
    if (!sub) return 2;
    for (i = 0; i < nsub; i++) sub[i] = build(depth - top, &next_key);
    root = join(top, sub, &used, &next_key);
    free(sub);
  }
  nodes_n = next_key;
  expect = nodes_n * (nodes_n - 1) / 2;
  for (p = 0; p < passes; p++) {
    got = sum(root);
    if (got != expect) {
      printf("FAIL bintree pass=%d sum=%lld expected=%lld\n", p, got, expect);
      return 1;
    }
    total += got;
  }
  if (leaf_visits != (long long)passes * ((nodes_n + 1) / 2)) {
    printf("FAIL bintree leaf visits=%lld\n", leaf_visits);
    return 1;
  }
  bump(root, 3);
  got = sum(root);
  if (got != expect + 3 * nodes_n) {
    printf("FAIL bintree after bump sum=%lld expected=%lld\n", got,
           expect + 3 * nodes_n);
    return 1;
  }
  destroy(root);
  free(nodes);
  printf("ok bintree nodes=%lld passes=%d sum=%lld total=%lld\n", nodes_n,
         passes, got, total);
  return 0;
}
