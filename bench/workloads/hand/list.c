/* hand/list.c - list.c written by hand with 32-bit indices into a typed
 * pool (pool.h) instead of pointers: the baseline for what compactptr
 * automates.  Same algorithm, same PRNG, same output as ../list.c; the
 * bucket arrays of the shuffle hold indices too.
 *
 * Node: 8 bytes (an int and a uint32_t index).
 * Usage and output: as ../list.c. */
#include "pool.h"

#include <string.h>

struct node {
  int val;
  uint32_t next;
};
HAND_POOL(nodes, struct node, next)

static unsigned long long st = 0xC0FFEE123456789ULL;
static unsigned long long next_u64(void) { /* xorshift64* */
  st ^= st >> 12;
  st ^= st << 25;
  st ^= st >> 27;
  return st * 0x2545F4914F6CDD1DULL;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 200000;
  int shuffled = argc > 2 && strcmp(argv[2], "shuffled") == 0;
  int passes = argc > 3 ? atoi(argv[3]) : 20, pass;
  uint32_t head = 0, p;
  long long expect = 0, got = 0;
  long i;
  if (n < 1 || passes < 1 ||
      (argc > 2 && !shuffled && strcmp(argv[2], "seq") != 0)) {
    fprintf(stderr, "usage: list [n] [seq|shuffled] [passes]\n");
    return 2;
  }
  { /* allocate and link in allocation order */
    uint32_t tail = 0;
    for (i = 0; i < n; i++) {
      p = nodes_alloc();
      nodes[p].val = (int)(i % 1000);
      nodes[p].next = 0;
      expect += i % 1000;
      if (tail) nodes[tail].next = p;
      else head = p;
      tail = p;
    }
  }
  if (shuffled) { /* two rounds of scattering into random buckets */
    int round;
    long nb = 4096, b;
    uint32_t *heads = malloc((size_t)nb * sizeof *heads);
    uint32_t *tails = malloc((size_t)nb * sizeof *tails);
    if (!heads || !tails) return 2;
    for (round = 0; round < 2; round++) {
      uint32_t tail = 0;
      for (b = 0; b < nb; b++) heads[b] = tails[b] = 0;
      for (p = head; p;) {
        uint32_t nx = nodes[p].next;
        b = (long)(next_u64() % (unsigned long long)nb);
        nodes[p].next = 0;
        if (tails[b]) nodes[tails[b]].next = p;
        else heads[b] = p;
        tails[b] = p;
        p = nx;
      }
      head = 0;
      for (b = 0; b < nb; b++)
        if (heads[b]) {
          if (tail) nodes[tail].next = heads[b];
          else head = heads[b];
          tail = tails[b];
        }
    }
    free(heads);
    free(tails);
  }
  for (pass = 0; pass < passes; pass++) {
    long k = 0;
    got = 0;
    for (p = head; p; p = nodes[p].next, k++) {
      got += nodes[p].val;
      if ((k & 15) == 0) nodes[p].val += pass;
    }
    if (got != expect) {
      printf("FAIL list pass=%d sum=%lld expected=%lld\n", pass, got, expect);
      return 1;
    }
    expect += (long long)pass * ((n + 15) / 16);
  }
  while (head) {
    p = nodes[head].next;
    nodes_free(head);
    head = p;
  }
  free(nodes);
  printf("ok list order=%s n=%ld passes=%d sum=%lld\n",
         shuffled ? "shuffled" : "seq", n, passes, got);
  return 0;
}
