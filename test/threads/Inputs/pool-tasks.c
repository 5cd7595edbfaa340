/* Tasks that build lists of compact nodes, run by the pool of pool.c. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include "pool.h"

struct CP_COMPACT node {
  long key;
  struct node *next;
};

static struct node *lists[8];

static void build(void *arg) {
  long id = (long)arg, i;
  for (i = 0; i < 20000; i++) {
    struct node *n = malloc(sizeof *n);
    n->key = i + id;
    n->next = lists[id];
    lists[id] = n;
  }
}

int main(void) {
  long i, s = 0, c = 0;
  int round;
  struct node *p;
  pool_start(2);
  for (round = 0; round < 4; round++) {
    for (i = 0; i < 8; i++)
      pool_submit(build, (void *)i);
    pool_wait_idle();
  }
  pool_stop();
  for (i = 0; i < 8; i++)
    for (p = lists[i]; p; p = p->next, c++)
      s += p->key;
  printf("%ld nodes, sum %ld\n", c, s);
  return 0;
}
