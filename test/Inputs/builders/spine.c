/* main's helper builds a list by calls to a constructor of another
 * translation unit (tree_new, cell.c), keeping the last node in a local
 * across each call: as real programs built of several files do.  The
 * constructor's prototype has a compact pointer, so the plugin takes the
 * call for a safepoint (it may allocate) and checks the helper; as a
 * compact body, it held every switch off until the arena was exhausted
 * (exit 70). */
#include "tree.h"
#include <stdio.h>
#include <stdlib.h>

static struct tree *spine(int n) {
  struct tree *first = tree_new(0), *last = first;
  for (int i = 1; i < n; i++) {
    struct tree *t = tree_new(i);
    last->right = t;
    last = t;
  }
  return first;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  long sum = 0, count = 0;
  for (const struct tree *t = spine(n); t; t = t->right) {
    sum += t->val;
    count++;
  }
  printf("%ld nodes, sum %ld\n", count, sum);
  return 0;
}
