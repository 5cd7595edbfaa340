/* Functions produced by macros (generator.h): a stack generated in the
 * header, another and a binary search tree generated here, one invocation
 * spread over three lines (the lines after it keep their numbers:
 * __LINE__ is printed), and a generator used for a plain struct, which
 * stays as it is.  The stacks and the tree allocate inside the generated
 * functions, so a switch mid-run happens there.
 * Usage: generator [n] (default 20000).  Prints checksums. */
#include "generator.h"
#include <stdio.h>

struct CP_COMPACT item {
  long val;
  struct item *next;
};

struct CP_COMPACT tnode {
  long key;
  BST_ENTRY(tnode) link;
};

struct plain { /* not compact: its generated functions are left alone */
  long val;
  struct plain *up;
};

static int by_key(long a, long b) { return a < b ? -1 : a > b; }

STACK_GENERATE(istack, item, next)
STACK_GENERATE(pstack, plain, up)
BST_GENERATE(tree, tnode,
             link,
             by_key)

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 20000, i, v, sum = 0, added = 0;
  unsigned long x = 12345;
  struct item *is = NULL;
  struct hitem *hs = NULL;
  struct plain *ps = NULL;
  struct tnode *t = NULL;
  printf("line %d\n", __LINE__);
  for (i = 0; i < n; i++) {
    int a = 0;
    x = x * 6364136223846793005UL + 1442695040888963407UL;
    is = istack_push(is, i);
    hs = hstack_push(hs, 2 * i);
    if (i % 4 == 0)
      ps = pstack_push(ps, i);
    t = tree_insert(t, (long)(x >> 40) % (4 * n), &a);
    added += a;
  }
  printf("counts %ld %ld %ld, added %ld\n", istack_count(is), hstack_count(hs),
         pstack_count(ps), added);
  printf("walk %ld\n", tree_walk(t, 1));
  while (is) {
    is = istack_pop(is, &v);
    sum += v;
  }
  while (hs) {
    hs = hstack_pop(hs, &v);
    sum -= v;
  }
  while (ps) {
    ps = pstack_pop(ps, &v);
    sum += 3 * v;
  }
  tree_free(t);
  printf("sum %ld\n", sum);
  return 0;
}
