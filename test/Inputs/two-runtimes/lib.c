#include "node.h"
#include <stdlib.h>

long sum_items(const struct item *it) {
  long s = 0;
  for (; it; it = it->next)
    s += it->value;
  return s;
}

/* For host.c: a list built and summed inside the library. */
long build_and_sum(long n) {
  struct item *head = 0;
  for (long i = 1; i <= n; i++) {
    struct item *it = malloc(sizeof *it);
    it->value = i;
    it->next = head;
    head = it;
  }
  return sum_items(head);
}
