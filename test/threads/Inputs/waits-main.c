/* Jobs that build lists of compact nodes, run by the workers of waits.c,
 * which wait for them in sem_wait, a read lock, a barrier and joins. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include "waits.h"

struct CP_COMPACT node {
  long key;
  struct node *next;
};

#define LISTS 16
static struct node *lists[LISTS];

static void build(long id) {
  long i;
  for (i = 0; i < 6000; i++) {
    struct node *n = malloc(sizeof *n);
    n->key = i * LISTS + id;
    n->next = lists[id % LISTS];
    lists[id % LISTS] = n;
  }
}

int main(void) {
  long i, s = 0, c = 0;
  int round;
  struct node *p;
  waits_start(3, build);
  for (round = 0; round < 6; round++)
    waits_round(round * LISTS, LISTS);
  waits_stop();
  for (i = 0; i < LISTS; i++)
    for (p = lists[i]; p; p = p->next, c++)
      s += p->key;
  printf("%ld nodes, sum %ld\n", c, s);
  waits_semantics();
  return 0;
}
