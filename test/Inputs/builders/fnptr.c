/* The builder is reached through a function pointer, by main and by its
 * own recursion. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
struct CP_COMPACT tree { int val; struct tree *left, *right; };
static struct tree *build(int depth);
static struct tree *(*builder)(int) = build;
static struct tree *build(int depth) {
  if (depth == 0) return NULL;
  struct tree *t = malloc(sizeof *t);
  t->val = 1; t->left = builder(depth - 1); t->right = builder(depth - 1);
  return t;
}
static long sum(struct tree *t) { return t ? t->val + sum(t->left) + sum(t->right) : 0; }
int main(int argc, char **argv) {
  int d = argc > 1 ? atoi(argv[1]) : 20;
  struct tree *(*b)(int) = builder;
  struct tree *t = b(d);
  printf("%ld\n", sum(t));
  return 0;
}
