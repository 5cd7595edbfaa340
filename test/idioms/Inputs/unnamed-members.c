/* An event simulator in the style of C code that declares link and
 * payload members with unnamed types: each event sits on a doubly linked
 * time-ordered queue through `struct { struct event *next, *prev; } q`
 * and on a per-kind list through an array of such entries, carries an
 * unnamed enum and an unnamed union, and keeps its statistics in a named
 * struct defined inside it and held by value (C gives that struct file
 * scope).  Events fire in time order, spawn later events, and are
 * unlinked from both lists and freed. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT event {
  long when;
  struct { struct event *next, *prev; } q;     /* the time queue */
  struct { struct event *next; } bykind[2];    /* per-kind stacks: [0] all, [1] this kind */
  enum { ARRIVE, DEPART, TICK } kind;
  union { long amount; double rate; } payload;
  struct evstats { int spawned; short depth; } stats;
};

static struct event *queue;   /* earliest first */
static struct event *kinds[3];

static unsigned rs = 12345u;
static unsigned rnd(unsigned n) { rs = rs * 1103515245u + 12345u; return (rs >> 16) % n; }

static void schedule(long when, int kind, short depth) {
  struct event *e = malloc(sizeof *e), **pp = &queue, *prev = NULL;
  e->when = when;
  e->kind = kind == 0 ? ARRIVE : kind == 1 ? DEPART : TICK;
  if (e->kind == TICK)
    e->payload.rate = 0.5 * depth;
  else
    e->payload.amount = when % 97;
  e->stats.spawned = 0;
  e->stats.depth = depth;
  while (*pp && (*pp)->when <= when) {
    prev = *pp;
    pp = &(*pp)->q.next;
  }
  e->q.next = *pp;
  e->q.prev = prev;
  if (*pp)
    (*pp)->q.prev = e;
  *pp = e;
  e->bykind[1].next = kinds[kind];
  kinds[kind] = e;
  e->bykind[0].next = NULL;
}

static void unlink_kind(struct event *e) {
  struct event **pp = &kinds[e->kind];
  while (*pp != e)
    pp = &(*pp)->bykind[1].next;
  *pp = e->bykind[1].next;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 12000, fired = 0, amount = 0;
  double rate = 0;
  int maxdepth = 0;
  for (long i = 0; i < 64; i++)
    schedule((long)rnd(1000), (int)rnd(3), 0);
  while (queue && fired < n) {
    struct event *e = queue;
    queue = e->q.next;
    if (queue)
      queue->q.prev = NULL;
    unlink_kind(e);
    fired++;
    if (e->kind == TICK)
      rate += e->payload.rate;
    else
      amount += e->payload.amount;
    if (e->stats.depth > maxdepth)
      maxdepth = e->stats.depth;
    int spawn = e->kind == ARRIVE ? 2 : 1;
    for (int k = 0; k < spawn && fired + 64 < n; k++) {
      schedule(e->when + 1 + (long)rnd(500), (int)rnd(3), (short)(e->stats.depth + 1));
      e->stats.spawned++;
    }
    free(e);
  }
  long left = 0, back = 0;
  for (struct event *e = queue; e; e = e->q.next) {
    left++;
    if (e->q.next && e->q.next->q.prev == e)
      back++;
  }
  printf("fired %ld, amount %ld, rate %.1f, depth %d, left %ld, linked back %ld\n",
         fired, amount, rate, maxdepth, left, back);
  return 0;
}
