/* main calls a builder defined in another translation unit (build.c). */
#include "tree.h"
#include <stdio.h>
#include <stdlib.h>
static long sum(struct tree *t) { return t ? t->val + sum(t->left) + sum(t->right) : 0; }
int main(int argc, char **argv) {
  int d = argc > 1 ? atoi(argv[1]) : 20;
  struct tree *t = build(d);
  printf("%ld\n", sum(t));
  return 0;
}
