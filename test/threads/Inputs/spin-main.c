/* Four threads add nodes to one list under the spin lock of spin.c. */
#include <compactptr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "spin.h"

struct CP_COMPACT node {
  long key;
  struct node *next;
};

static struct node *head;

static void push(long key) {
  struct node *n = malloc(sizeof *n);
  n->key = key;
  n->next = head;
  head = n;
}

static void *worker(void *arg) {
  long id = (long)arg, i;
  for (i = 0; i < 30000; i++)
    with_spin_lock(push, id * 100000 + i);
  return NULL;
}

int main(void) {
  pthread_t t[4];
  long i, n = 0, s = 0;
  struct node *p;
  spin_init();
  for (i = 0; i < 4; i++)
    pthread_create(&t[i], NULL, worker, (void *)i);
  for (i = 0; i < 4; i++)
    pthread_join(t[i], NULL);
  for (p = head; p; p = p->next, n++)
    s += p->key;
  printf("%ld nodes, sum %ld\n", n, s);
  return 0;
}
