/* The heap is built by one recursive function called once from main: the
 * switch happens at an allocation inside it. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
struct CP_COMPACT tree { int val; struct tree *left, *right; };
static struct tree *build(int depth) {
  if (depth == 0) return NULL;
  struct tree *t = malloc(sizeof *t);
  t->val = 1; t->left = build(depth - 1); t->right = build(depth - 1);
  return t;
}
static long sum(struct tree *t) { return t ? t->val + sum(t->left) + sum(t->right) : 0; }
int main(int argc, char **argv) {
  int d = argc > 1 ? atoi(argv[1]) : 20;
  struct tree *t = build(d);
  printf("%ld\n", sum(t));
  return 0;
}
