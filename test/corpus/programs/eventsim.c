/* eventsim.c - a discrete-event simulation of a bank with several tellers.
 *
 * In the style of event-driven simulators written in C (the "bank" and
 * "supermarket" exercises of simulation courses, and the schedulers of
 * network simulators): a priority queue of pending events ordered by time,
 * here a skew heap merged recursively; events recycled through a global
 * free list instead of being freed; customers queued FIFO through an
 * intrusive `next` link with global head and tail pointers; one handler
 * per event type chosen by a switch.  Shapes: `typedef struct event
 * *Event`, a node type that is both a heap node and a free-list node,
 * recursion in merge, globals holding node pointers, a by-value statistics
 * struct, function-like macros for the queue.
 *
 * Usage: eventsim [customers [tellers]]        (default 200000 4)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

enum kind { ARRIVAL, DEPARTURE, REPORT };

typedef struct CP_COMPACT event *Event;
struct CP_COMPACT event {
  long time;
  long seq;                      /* ties broken by creation order */
  enum kind kind;
  int teller;
  struct customer *who;
  Event left, right;             /* skew heap links; left is the free-list link */
};

typedef struct CP_COMPACT customer *Customer;
struct CP_COMPACT customer {
  long id;
  long arrived;
  long service;
  Customer next;
};

struct stats {
  long served, total_wait, max_wait, max_queue, reports;
};

static Event free_events;        /* recycled events */
static long event_allocs, seqno;
static Customer q_head, q_tail;   /* waiting line */
static long q_len;
static Customer at_teller[64];
static unsigned long rng = 0x2545F4914F6CDD1DUL;

#define ENQUEUE(c) do { (c)->next = NULL; if (q_tail) q_tail->next = (c); else q_head = (c); q_tail = (c); q_len++; } while (0)
#define DEQUEUE(c) do { (c) = q_head; q_head = (c)->next; if (!q_head) q_tail = NULL; q_len--; } while (0)

static long rnd(long mean)      /* roughly exponential, integer */
{
  long r = 0;
  int k;

  for (k = 0; k < 3; k++) {
    rng ^= rng << 7;
    rng ^= rng >> 9;
    r += (long)(rng % (unsigned long)(mean * 2 / 3 + 1));
  }
  return r;
}

static Event new_event(long time, enum kind kind)
{
  Event e;

  if (free_events) {
    e = free_events;
    free_events = e->left;
  } else {
    e = (Event)malloc(sizeof(struct event));
    event_allocs++;
  }
  e->time = time;
  e->seq = seqno++;
  e->kind = kind;
  e->teller = -1;
  e->who = NULL;
  e->left = e->right = NULL;
  return e;
}

static void dispose(Event e)
{
  e->left = free_events;
  free_events = e;
}

static int before(Event a, Event b)
{
  return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static Event merge(Event a, Event b)
{
  Event t;

  if (!a)
    return b;
  if (!b)
    return a;
  if (before(b, a)) {
    t = a;
    a = b;
    b = t;
  }
  t = a->right;                 /* skew: merge into the right, then swap */
  a->right = a->left;
  a->left = merge(t, b);
  return a;
}

static Event pending;

static void schedule(Event e)
{
  pending = merge(pending, e);
}

static Event next_event(void)
{
  Event e = pending;

  if (e)
    pending = merge(e->left, e->right);
  return e;
}

static void start_service(int teller, Customer c, long now, struct stats *st)
{
  Event d = new_event(now + c->service, DEPARTURE);
  long wait = now - c->arrived;

  d->teller = teller;
  d->who = c;
  at_teller[teller] = c;
  st->total_wait += wait;
  if (wait > st->max_wait)
    st->max_wait = wait;
  schedule(d);
}

static struct stats simulate(long ncustomers, int ntellers)
{
  struct stats st = { 0, 0, 0, 0, 0 };
  long arrived = 0, checksum = 0;
  Event e;
  int i;

  schedule(new_event(0, ARRIVAL));
  schedule(new_event(1000, REPORT));
  while ((e = next_event()) != NULL) {
    long now = e->time;

    switch (e->kind) {
    case ARRIVAL: {
      Customer c = (Customer)malloc(sizeof(struct customer));

      c->id = arrived++;
      c->arrived = now;
      c->service = 5 + rnd(4 * ntellers + 3);
      for (i = 0; i < ntellers && at_teller[i]; i++)
        ;
      if (i < ntellers)
        start_service(i, c, now, &st);
      else {
        ENQUEUE(c);
        if (q_len > st.max_queue)
          st.max_queue = q_len;
      }
      if (arrived < ncustomers)
        schedule(new_event(now + 1 + rnd(4), ARRIVAL));
      break;
    }
    case DEPARTURE: {
      Customer c = e->who;

      checksum += c->id % 97 * (now % 89);
      at_teller[e->teller] = NULL;
      free(c);
      st.served++;
      if (q_head) {
        Customer n;

        DEQUEUE(n);
        start_service(e->teller, n, now, &st);
      }
      break;
    }
    case REPORT:
      st.reports++;
      if (pending)                /* stop reporting when nothing else is left */
        schedule(new_event(now + 1000, REPORT));
      break;
    }
    dispose(e);
  }
  printf("checksum %ld\n", checksum);
  return st;
}

int main(int argc, char *argv[])
{
  long n = argc > 1 ? atol(argv[1]) : 200000;
  int tellers = argc > 2 ? atoi(argv[2]) : 4;
  struct stats st;
  long freed = 0;

  if (tellers < 1 || tellers > 64)
    tellers = 4;
  st = simulate(n, tellers);
  printf("served %ld, mean wait %ld.%02ld, max wait %ld, longest line %ld, reports %ld\n",
         st.served, st.total_wait / (st.served ? st.served : 1),
         st.total_wait * 100 / (st.served ? st.served : 1) % 100, st.max_wait, st.max_queue,
         st.reports);
  while (free_events) {
    Event e = free_events;

    free_events = e->left;
    free(e);
    freed++;
  }
  printf("events allocated %ld, freed %ld\n", event_allocs, freed);
  return 0;
}
