/* Threads that push compact nodes onto one list under the spin lock of
 * spinlock.c, allocating while they hold it. */
#include <compactptr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

void spin_lock(void);
void spin_unlock(void);
void wait_gate(void);
void open_gate(void);

struct CP_COMPACT node {
  long key;
  struct node *next;
};

static struct node *shared;

static void *worker(void *arg) {
  long base = (long)arg, i;
  wait_gate();
  for (i = 0; i < 30000; i++) {
    struct node *n;
    spin_lock();
    n = malloc(sizeof *n);
    n->key = base + i;
    n->next = shared;
    shared = n;
    spin_unlock();
  }
  return NULL;
}

int main(void) {
  pthread_t t[3];
  long i, s = 0, c = 0;
  struct node *p;
  for (i = 0; i < 3; i++)
    pthread_create(&t[i], NULL, worker, (void *)(i * 100000));
  open_gate();
  for (i = 0; i < 3; i++)
    pthread_join(t[i], NULL);
  for (p = shared; p; p = p->next, c++)
    s += p->key;
  printf("%ld nodes, sum %ld\n", c, s);
  return 0;
}
