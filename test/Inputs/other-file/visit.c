/* The other file of test/rewrite/boxed-other-file-callee.c: it only hands
 * ctx on, as a generic library of the program would. */
#include "visit.h"

int visit_all(struct item *h, keep_fn keep, void *ctx) {
  int k = 0;
  for (; h; h = h->next)
    k += keep(h, ctx);
  return k;
}

unsigned long sum_bytes(const void *p, unsigned long n) {
  const unsigned char *b = p;
  unsigned long s = 0;
  while (n--)
    s = s * 31 + *b++;
  return s;
}
