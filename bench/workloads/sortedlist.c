/* sortedlist.c - an event queue kept as a sorted singly linked list: the
 * node does not shrink, and the hot loop is a pointer walk.
 *
 * A discrete-event simulation's pending-event set of n events, kept sorted
 * by time in a singly linked list (the textbook structure before heaps).
 * Each step removes the earliest event and schedules a new one at a random
 * time after it; inserting walks the list from its head to the insertion
 * point, on average past half of the events.  Nearly all the time goes to
 * that walk.  The node is a 64-bit time and a pointer: 16 bytes natively
 * and 16 bytes compact too (an 8-byte time, a 4-byte handle, padding to the
 * time's alignment), so compression saves nothing and every hop pays the
 * decode.  Self-check: events leave in time order, and the sum of their
 * times matches a shadow count kept in an array.
 *
 * Node: 16 bytes native (malloc chunk 32), 16 bytes compact.
 * Usage: sortedlist [n] [steps]   defaults: 1000 20000 (quick);
 *   full: 8000 100000
 * Output: "ok sortedlist n=... steps=... checksum=..." or "FAIL ..." with
 * exit 1. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT event {
  long long time;
  struct event *next;
};

static unsigned long long rs = 0x9E3779B97F4A7C15ULL;
static unsigned rnd(void) { /* PCG-style LCG, high bits */
  rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)(rs >> 33);
}

static struct event *head;

/* Walks to the last event not later than t and links a new one after it. */
static void schedule(long long t) {
  struct event *e = malloc(sizeof(struct event)), *p;
  if (!e) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  e->time = t;
  if (!head || head->time > t) {
    e->next = head;
    head = e;
    return;
  }
  p = head;
  while (p->next && p->next->time <= t) p = p->next;
  e->next = p->next;
  p->next = e;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000;
  long steps = argc > 2 ? atol(argv[2]) : 20000, i;
  long long now = 0, sum = 0, expect = 0, check = 0;
  if (n < 1 || n > 10000000 || steps < 0) {
    fprintf(stderr, "usage: sortedlist [n 1..1e7] [steps]\n");
    return 2;
  }
  for (i = 0; i < n; i++) {
    long long t = rnd() % (unsigned)(2 * n);
    schedule(t);
    expect += t;
  }
  for (i = 0; i < steps; i++) {
    struct event *e = head;
    long long t;
    if (e->time < now) {
      printf("FAIL sortedlist step=%ld time=%lld before now=%lld\n", i,
             e->time, now);
      return 1;
    }
    now = e->time;
    sum += now;
    head = e->next;
    free(e);
    t = now + 1 + rnd() % (unsigned)(2 * n);
    schedule(t);
    expect += t;
    check ^= now * 0x9E3779B97F4A7C15LL;
  }
  /* drain: what remains, in order, completes the sum */
  while (head) {
    struct event *e = head;
    if (e->time < now) {
      printf("FAIL sortedlist drain time=%lld before now=%lld\n", e->time, now);
      return 1;
    }
    now = e->time;
    sum += now;
    head = e->next;
    free(e);
  }
  if (sum != expect) {
    printf("FAIL sortedlist sum=%lld expected=%lld\n", sum, expect);
    return 1;
  }
  printf("ok sortedlist n=%ld steps=%ld last=%lld checksum=%llx\n", n, steps,
         now, (unsigned long long)check);
  return 0;
}
