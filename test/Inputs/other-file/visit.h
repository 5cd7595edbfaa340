/* Shared by test/rewrite/boxed-other-file-callee.c and visit.c: a list and
 * a visitor that hands each item and the caller's context to a callback. */
#include <compactptr.h>

struct CP_COMPACT item {
  struct item *next;
  int qty;
};
typedef int (*keep_fn)(const struct item *it, void *ctx);
int visit_all(struct item *h, keep_fn keep, void *ctx);
/* A byte helper: it sees bytes only. */
unsigned long sum_bytes(const void *p, unsigned long n);
