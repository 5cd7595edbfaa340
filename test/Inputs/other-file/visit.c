/* The other file of test/rewrite/boxed-other-file-callee.c: it only hands
 * ctx on, as a generic library of the program would. */
#include "visit.h"

int visit_all(struct item *h, keep_fn keep, void *ctx) {
  int k = 0;
  for (; h; h = h->next)
    k += keep(h, ctx);
  return k;
}
