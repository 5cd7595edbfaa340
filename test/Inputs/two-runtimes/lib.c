#include "node.h"

long sum_items(const struct item *it) {
  long s = 0;
  for (; it; it = it->next)
    s += it->value;
  return s;
}
