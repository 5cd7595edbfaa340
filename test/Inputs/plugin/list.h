/* A header shared by several translation units: a compact type and a
 * static inline function touching it (rewritten identically in each). */
#ifndef LIST_H
#define LIST_H
#include <compactptr.h>
#include <stdlib.h>

struct CP_COMPACT item {
  int v;
  struct item *next;
};

static inline struct item *item_push(struct item *head, int v) {
  struct item *it = malloc(sizeof *it);
  it->v = v;
  it->next = head;
  return it;
}

long item_sum(const struct item *it);
void item_free(struct item *it);
#endif
