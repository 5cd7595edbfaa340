/* Mutually recursive builders: build allocates through a helper and links
 * the children that children() builds by calling build again. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
struct CP_COMPACT tree { int val; struct tree *left, *right; };
static struct tree *build(int depth);
static struct tree *node_of(int val) {
  struct tree *t = calloc(1, sizeof(struct tree));
  t->val = val;
  return t;
}
static void children(struct tree *t, int depth) {
  t->left = build(depth - 1);
  t->right = depth % 2 ? build(depth - 1) : node_of(0) ? build(depth - 1) : NULL;
}
static struct tree *build(int depth) {
  struct tree *t;
  if (depth == 0) return NULL;
  t = node_of(1);
  children(t, depth);
  return t;
}
static long sum(struct tree *t) { return t ? t->val + sum(t->left) + sum(t->right) : 0; }
int main(int argc, char **argv) {
  int d = argc > 1 ? atoi(argv[1]) : 20;
  struct tree *t = build(d);
  printf("%ld\n", sum(t));
  return 0;
}
