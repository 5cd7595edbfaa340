/* dlist.c - doubly linked circular lists (cycles through next and prev):
 * sentinel-headed lists, insert before/after, unlink, move-to-front,
 * splice of two rings, forward and backward walks that check prev/next
 * agree, and a two-node and one-node ring (self cycle).
 * Usage: dlist [n]   (default 1000) */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT dnode {
  struct dnode *next;
  long val;
  struct dnode *prev;
};

static unsigned seed = 12345u;
static unsigned rnd(void) {
  seed = seed * 1103515245u + 12345u;
  return (seed >> 8) & 0xffffffu;
}

static struct dnode *ring_new(long val) {
  struct dnode *d = malloc(sizeof(struct dnode));
  if (!d) exit(2);
  d->val = val;
  d->next = d->prev = d; /* a one-node cycle */
  return d;
}

static void insert_after(struct dnode *at, struct dnode *d) {
  d->next = at->next;
  d->prev = at;
  at->next->prev = d;
  at->next = d;
}

static void insert_before(struct dnode *at, struct dnode *d) {
  insert_after(at->prev, d);
}

static struct dnode *unlink_node(struct dnode *d) {
  d->prev->next = d->next;
  d->next->prev = d->prev;
  d->next = d->prev = d;
  return d;
}

/* Splices ring b (whole) into ring a after a's node `at`. */
static void splice(struct dnode *at, struct dnode *b) {
  struct dnode *b_last = b->prev, *after = at->next;
  at->next = b;
  b->prev = at;
  b_last->next = after;
  after->prev = b_last;
}

/* Walks forward and backward from head; returns the ring length, or -1 when
 * the two walks disagree. */
static long check_ring(struct dnode *head, unsigned long *hash) {
  long fwd = 0, bwd = 0;
  struct dnode *p = head;
  unsigned long h = 0;
  do {
    if (p->next->prev != p) return -1;
    h = h * 31 + (unsigned long)p->val;
    fwd++;
    p = p->next;
  } while (p != head);
  p = head;
  do {
    bwd++;
    p = p->prev;
  } while (p != head);
  *hash = h;
  return fwd == bwd ? fwd : -1;
}

static void free_ring(struct dnode *head) {
  struct dnode *p = head->next;
  while (p != head) {
    struct dnode *nx = p->next;
    free(p);
    p = nx;
  }
  free(head);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
  struct dnode *a = ring_new(-1), *b = ring_new(-2), *p;
  unsigned long h;
  long i, len, moved = 0, removed = 0;
  if (n < 8) n = 8;

  for (i = 0; i < n; i++) {
    struct dnode *d = ring_new(i);
    if (rnd() & 1) insert_after(a, d);
    else insert_before(a, d);
  }
  for (i = 0; i < n / 2; i++) insert_before(b, ring_new(1000000 + i));
  len = check_ring(a, &h);
  printf("ring a len=%ld hash=%lu\n", len, h);
  len = check_ring(b, &h);
  printf("ring b len=%ld hash=%lu\n", len, h);

  /* move every node with val % 7 == 3 to the front of a */
  p = a->next;
  while (p != a) {
    struct dnode *nx = p->next;
    if (p->val % 7 == 3) {
      insert_after(a, unlink_node(p));
      moved++;
    }
    p = nx;
  }
  /* remove every node with val % 5 == 0 (except the sentinel) */
  for (p = a->next; p != a;) {
    struct dnode *nx = p->next;
    if (p->val >= 0 && p->val % 5 == 0) {
      free(unlink_node(p));
      removed++;
    }
    p = nx;
  }
  len = check_ring(a, &h);
  printf("after mtf moved=%ld removed=%ld len=%ld hash=%lu\n", moved, removed,
         len, h);

  splice(a->next->next, b);
  len = check_ring(a, &h);
  printf("spliced len=%ld hash=%lu\n", len, h);

  /* a self cycle and a two-node cycle */
  {
    struct dnode *s = ring_new(42), *t = ring_new(43);
    unsigned long hs;
    printf("self: next==self %d prev==self %d len=%ld\n", s->next == s,
           s->prev == s, check_ring(s, &hs));
    insert_after(s, t);
    printf("pair: len=%ld s->next->next==s %d t->prev->prev==t %d\n",
           check_ring(s, &hs), s->next->next == s, t->prev->prev == t);
    free_ring(s);
  }
  free_ring(a);
  return 0;
}
