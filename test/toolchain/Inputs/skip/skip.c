/* A skip list node with its links in a flexible array member of compact
 * pointers, and a node whose slots are compact values, for the gdb
 * extension: built, then inspected before and after the switch. */
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

struct CP_COMPACT bag {
  int n;
  struct slot {
    struct bag *child;
    int weight;
  } slots[];
};

__attribute__((noinline)) int stop(struct snode *h) { return h->lvl; }

int main(void) {
  struct snode *head = make(-1, 3);
  struct snode *a = make(10, 1), *b = make(20, 3);
  head->forward[0] = a;
  a->forward[0] = b;
  head->forward[1] = b;
  head->forward[2] = b;
  struct bag *bag = calloc(1, sizeof *bag + 2 * sizeof bag->slots[0]);
  bag->n = 2;
  bag->slots[1].weight = 7;
  bag->slots[1].child = bag;
  int r = stop(head);
  cp_switch_to_wide();
  return stop(head) - r + bag->slots[1].weight - 7;
}
