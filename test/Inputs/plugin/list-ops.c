#include "list.h"

long item_sum(const struct item *it) {
  long s = 0;
  for (; it; it = it->next)
    s += it->v;
  return s;
}

void item_free(struct item *it) {
  while (it) {
    struct item *n = it->next;
    free(it);
    it = n;
  }
}
