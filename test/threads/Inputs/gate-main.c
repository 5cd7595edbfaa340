/* Waits of gate.c the switch cannot count as stopped: one called back
 * under a compact body (walk holds its cursor in a register while the
 * visitor waits at the gate), one on a mutex inside a compact object
 * handed to gate.c as bytes.  Main allocates until the switch is due. */
#include <compactptr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gate.h"

struct CP_COMPACT node {
  long key;
  struct node *next;
};
struct CP_COMPACT account {
  pthread_mutex_t lock;
  long balance;
  struct account *next;
};

static struct node *head;
static struct account *account0;
typedef void (*visit_fn)(long);

/* Compact pointers in registers while the visitor runs. */
static long walk(visit_fn visit) {
  long s = 0;
  struct node *p;
  for (p = head; p; p = p->next) {
    visit(p->key);
    s += p->key;
  }
  return s;
}

static void *walker(void *arg) {
  (void)arg;
  printf("sum %ld\n", walk(gate_pass));
  return NULL;
}

static void *locker(void *arg) {
  (void)arg;
  lock_bytes(&account0->lock);
  account0->balance++;
  unlock_bytes(&account0->lock);
  return NULL;
}

int main(int argc, char **argv) {
  long i;
  pthread_t t;
  for (i = 0; i < 100; i++) {
    struct node *n = malloc(sizeof *n);
    n->key = i;
    n->next = head;
    head = n;
  }
  account0 = calloc(1, sizeof *account0);
  pthread_mutex_init(&account0->lock, NULL);
  if (argc > 1 && !strcmp(argv[1], "object")) {
    pthread_mutex_lock(&account0->lock);
    pthread_create(&t, NULL, locker, NULL);
  } else {
    gate_close();
    pthread_create(&t, NULL, walker, NULL);
  }
  usleep(50000);
  for (i = 0; i < 200000; i++) {
    struct node *n = malloc(sizeof *n);
    n->key = -1;
    n->next = head->next;
    head->next = n;
  }
  printf("unreached\n");
  return 0;
}
