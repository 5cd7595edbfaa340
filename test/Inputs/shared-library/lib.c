#include <stdlib.h>
#include "node.h"
struct node *push(struct node *head, long v) {
  struct node *n = malloc(sizeof *n);
  n->v = v;
  n->next = head;
  return n;
}
