/* extsum - a tree summed many times through a pure function defined in
 * another translation unit (sum.c).
 *
 * Builds a complete binary tree of 2^depth - 1 nodes with values from a
 * fixed-seed PRNG, then adds tree_sum(t) `passes` times.  tree_sum is
 * declared pure (tree.h), so the optimizer may fold the passes into one
 * call: most of the time is the build.  The program exists to show that
 * the switchable build's main does not stop that folding (a loop that
 * calls only functions that cannot allocate needs no safepoint poll per
 * iteration), and that such a program still switches while the tree is
 * built.  Self-check: the total equals passes times the sum of the values
 * the builder handed out.
 *
 * Node: 24 bytes native (malloc chunk 32), 16 bytes compact.
 * Usage: extsum [depth] [passes]   defaults: 20 100 (quick); full: 22 100
 * Output: "ok extsum nodes=... sum=..." or "FAIL ..." with exit 1. */
#include "tree.h"
#include <stdio.h>
#include <stdlib.h>

static unsigned long long rng = 88172645463325252ULL;

static long next_value(void) { /* xorshift64 */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (long)(rng % 1000);
}

static struct tree *build(int depth, long *sum) {
  struct tree *t;
  if (depth == 0) return NULL;
  t = malloc(sizeof *t);
  if (!t) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  t->val = next_value();
  *sum += t->val;
  t->left = build(depth - 1, sum);
  t->right = build(depth - 1, sum);
  return t;
}

int main(int argc, char **argv) {
  int depth = argc > 1 ? atoi(argv[1]) : 20;
  int passes = argc > 2 ? atoi(argv[2]) : 100;
  long expect = 0, total = 0;
  struct tree *t;
  int i;
  if (depth < 1 || depth > 28 || passes < 1) {
    fprintf(stderr, "usage: extsum [depth 1..28] [passes >= 1]\n");
    return 2;
  }
  t = build(depth, &expect);
  for (i = 0; i < passes; i++)
    total += tree_sum(t);
  if (total != expect * passes) {
    printf("FAIL extsum total=%ld expected=%ld\n", total, expect * passes);
    return 1;
  }
  printf("ok extsum nodes=%ld sum=%ld\n", (1L << depth) - 1, total);
  return 0;
}
