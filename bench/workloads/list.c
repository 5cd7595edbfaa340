/* list.c - a long singly linked list, traversed many times, linked either
 * in allocation order or in a shuffled order.
 *
 * Allocates n nodes one after another, linked in that order ("seq":
 * traversals stream through memory), or then reorders the list ("shuffled":
 * two rounds of scattering the nodes into 4096 random buckets (root arrays
 * of list heads and tails) and concatenating them, so consecutive nodes lie
 * far apart and every step is a dependent load from an unpredictable
 * address).  No per-node side array: peak memory is the nodes.  Each pass sums the list and adds the pass number to every
 * 16th value on the way.
 * Self-check: every pass's sum equals the closed form.
 *
 * Node: 16 bytes native (malloc chunk 32), 8 bytes compact.
 * Usage: list [n] [seq|shuffled] [passes]
 *   defaults: 200000 seq 20 (quick, also 100000 shuffled 10);
 *   full: 4000000 seq 100, 3000000 shuffled 2
 * Output: "ok list order=... n=... sum=..." or "FAIL ..." with exit 1. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT node {
  int val;
  struct node *next;
};

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
  struct node *head = NULL, *p;
  long long expect = 0, got = 0;
  long i;
  if (n < 1 || passes < 1 ||
      (argc > 2 && !shuffled && strcmp(argv[2], "seq") != 0)) {
    fprintf(stderr, "usage: list [n] [seq|shuffled] [passes]\n");
    return 2;
  }
  { /* allocate and link in allocation order */
    struct node *tail = NULL;
    for (i = 0; i < n; i++) {
      p = malloc(sizeof(struct node));
      if (!p) {
        fprintf(stderr, "out of memory\n");
        return 2;
      }
      p->val = (int)(i % 1000);
      p->next = NULL;
      expect += i % 1000;
      if (tail) tail->next = p;
      else head = p;
      tail = p;
    }
  }
  if (shuffled) { /* two rounds of scattering into random buckets */
    int round;
    long nb = 4096, b;
    struct node **heads = malloc((size_t)nb * sizeof(struct node *));
    struct node **tails = malloc((size_t)nb * sizeof(struct node *));
    if (!heads || !tails) return 2;
    for (round = 0; round < 2; round++) {
      struct node *tail = NULL;
      for (b = 0; b < nb; b++) heads[b] = tails[b] = NULL;
      for (p = head; p;) {
        struct node *nx = p->next;
        b = (long)(next_u64() % (unsigned long long)nb);
        p->next = NULL;
        if (tails[b]) tails[b]->next = p;
        else heads[b] = p;
        tails[b] = p;
        p = nx;
      }
      head = NULL;
      for (b = 0; b < nb; b++)
        if (heads[b]) {
          if (tail) tail->next = heads[b];
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
    for (p = head; p; p = p->next, k++) {
      got += p->val;
      if ((k & 15) == 0) p->val += pass;
    }
    if (got != expect) {
      printf("FAIL list pass=%d sum=%lld expected=%lld\n", pass, got, expect);
      return 1;
    }
    expect += (long long)pass * ((n + 15) / 16);
  }
  while (head) {
    p = head->next;
    free(head);
    head = p;
  }
  printf("ok list order=%s n=%ld passes=%d sum=%lld\n",
         shuffled ? "shuffled" : "seq", n, passes, got);
  return 0;
}
