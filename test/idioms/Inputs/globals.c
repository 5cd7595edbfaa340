/* Variables of compact types whose address is used as a compact pointer:
 * the plugin places them in the compact heap behind their own name.
 *   - `struct queue` holds node pointers, so it is compact by inference;
 *     two file-static queues are passed to functions by address;
 *   - a sentinel node (`#define NIL (&nil)`) ends every chain and is
 *     stored into the nodes' fields;
 *   - `ring` is a global with external linkage whose initializer takes
 *     its own address (a circular list head, as LIST_HEAD does);
 *   - a local header node whose address is linked into the heap while a
 *     list is split, and a local `struct queue` passed by address;
 *   - sizeof, copies to and from them.
 * Usage: globals [nodes]                (default 40000) */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT node {
  long key;
  struct node *next, *prev;
};

struct queue {
  struct node *head, *tail;
  long count;
};

static struct queue evens, odds;
static struct node nil = {-1, NULL, NULL};
#define NIL (&nil)
struct node ring = {0, &ring, &ring};

static void push(struct queue *q, struct node *n) {
  n->next = NIL;
  if (q->tail != NIL)
    q->tail->next = n;
  else
    q->head = n;
  q->tail = n;
  q->count++;
}

static void init(struct queue *q) {
  memset(q, 0, sizeof *q);
  q->head = q->tail = NIL;
}

static void ring_add(struct node *n) {
  n->next = ring.next;
  n->prev = &ring;
  ring.next->prev = n;
  ring.next = n;
}

/* Moves the nodes of q with keys below `pivot` to a new queue, keeping
 * order, through a local header node. */
static long split(struct queue *q, long pivot, struct queue *out) {
  struct node hdr;
  struct node *last = &hdr, *p;
  long moved = 0;
  hdr.next = NIL;
  init(out);
  for (p = q->head; p != NIL; p = p->next)
    if (p->key < pivot) {
      struct node *c = malloc(sizeof *c);
      c->key = p->key;
      c->prev = NULL;
      last->next = c;
      last = c;
      moved++;
    }
  last->next = NIL;
  for (p = hdr.next; p != NIL;) {
    struct node *n = p->next;
    push(out, p);
    p = n;
  }
  return moved;
}

static long sum(const struct queue *q) {
  long s = 0;
  for (const struct node *p = q->head; p != NIL; p = p->next)
    s += p->key;
  return s;
}

static void drain(struct queue *q) {
  while (q->head != NIL) {
    struct node *n = q->head;
    q->head = n->next;
    free(n);
  }
  q->tail = NIL;
  q->count = 0;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 40000, ringsum = 0;
  struct queue low;
  init(&evens);
  init(&odds);
  for (long i = 0; i < n; i++) {
    struct node *a = malloc(sizeof *a);
    a->key = (i * 7919) % n;
    a->prev = NULL;
    push(a->key % 2 ? &odds : &evens, a);
    if (i % 8 == 0) {
      struct node *r = malloc(sizeof *r);
      r->key = i;
      ring_add(r);
    }
  }
  long moved = split(&evens, n / 3, &low);
  struct queue copy = odds; /* a copy of a heap object's fields */
  struct node saved = nil;
  for (struct node *r = ring.next; r != &ring; r = r->next)
    ringsum += r->key;
  printf("evens %ld sum %ld, odds %ld sum %ld, low %ld sum %ld (moved %ld)\n",
         evens.count, sum(&evens), copy.count, sum(&copy), low.count,
         sum(&low), moved);
  printf("ring %ld, nil %ld, sizes %d %d\n", ringsum, saved.key,
         sizeof evens == sizeof(struct queue), sizeof nil == sizeof(struct node));
  drain(&evens);
  drain(&odds);
  drain(&low);
  while (ring.next != &ring) {
    struct node *r = ring.next;
    ring.next = r->next;
    free(r);
  }
  return 0;
}
