/* hand/sortedlist.c - sortedlist.c written by hand with 32-bit indices
 * into a typed pool (pool.h) instead of pointers: the baseline for what
 * compactptr automates.  Same algorithm and output as ../sortedlist.c.
 *
 * Node: 16 bytes (a 64-bit time and a uint32_t index, padded).
 * Usage and output: as ../sortedlist.c. */
#include "pool.h"

struct event {
  long long time;
  uint32_t next;
};
HAND_POOL(events, struct event, next)

static unsigned long long rs = 0x9E3779B97F4A7C15ULL;
static unsigned rnd(void) { /* PCG-style LCG, high bits */
  rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)(rs >> 33);
}

static uint32_t head;

/* Walks to the last event not later than t and links a new one after it. */
static void schedule(long long t) {
  uint32_t e = events_alloc(), p, q;
  events[e].time = t;
  if (!head || events[head].time > t) {
    events[e].next = head;
    head = e;
    return;
  }
  p = head;
  while ((q = events[p].next) && events[q].time <= t) p = q;
  events[e].next = events[p].next;
  events[p].next = e;
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
    uint32_t e = head;
    long long t;
    if (events[e].time < now) {
      printf("FAIL sortedlist step=%ld time=%lld before now=%lld\n", i,
             events[e].time, now);
      return 1;
    }
    now = events[e].time;
    sum += now;
    head = events[e].next;
    events_free(e);
    t = now + 1 + rnd() % (unsigned)(2 * n);
    schedule(t);
    expect += t;
    check ^= now * 0x9E3779B97F4A7C15LL;
  }
  /* drain: what remains, in order, completes the sum */
  while (head) {
    uint32_t e = head;
    if (events[e].time < now) {
      printf("FAIL sortedlist drain time=%lld before now=%lld\n", events[e].time, now);
      return 1;
    }
    now = events[e].time;
    sum += now;
    head = events[e].next;
    events_free(e);
  }
  if (sum != expect) {
    printf("FAIL sortedlist sum=%lld expected=%lld\n", sum, expect);
    return 1;
  }
  free(events);
  printf("ok sortedlist n=%ld steps=%ld last=%lld checksum=%llx\n", n, steps,
         now, (unsigned long long)check);
  return 0;
}
