/* A skip list node with its links in a flexible array member of compact
 * pointers, for the gdb extension: built, then inspected at stop(). */
#include <compactptr.h>
#include <stdlib.h>

struct CP_COMPACT snode {
  int key;
  int lvl;
  struct snode *forward[];
};

static struct snode *make(int key, int lvl) {
  struct snode *n = calloc(1, sizeof(struct snode) + lvl * sizeof(struct snode *));
  n->key = key;
  n->lvl = lvl;
  return n;
}

__attribute__((noinline)) int stop(struct snode *h) { return h->lvl; }

int main(void) {
  struct snode *head = make(-1, 3);
  struct snode *a = make(10, 1), *b = make(20, 3);
  head->forward[0] = a;
  a->forward[0] = b;
  head->forward[1] = b;
  head->forward[2] = b;
  int r = stop(head);
  cp_switch_to_wide();
  return stop(head) - r;
}
