/* hashtable.c - chained hash table with inserts, lookups and deletes.
 *
 * Keys are a bijective scramble of a counter i; the table always holds
 * exactly the keys of a sliding window lo <= i < hi.  Each round looks up
 * n random counters (about half inside the window), deletes the n/8
 * oldest keys and inserts n/8 new ones, so entries are freed and
 * reallocated throughout.  Buckets are a root array (malloc(nb *
 * sizeof(struct entry *))) with about 4 entries per bucket.
 * Self-check: every lookup's result matches window membership, every
 * delete finds its key, and a final walk of all chains finds exactly the
 * window's keys with the values stored for them.
 *
 * Node: 16 bytes native (malloc chunk 32), 12 bytes compact.
 * Usage: hashtable [n] [rounds]   defaults: 100000 4 (quick); full: 3000000 1
 * Output: "ok hashtable n=... found=..." or "FAIL ..." with exit 1. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT entry {
  unsigned key;
  unsigned val;
  struct entry *next;
};

static unsigned scramble(unsigned x) { /* a bijection on 32 bits */
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

static unsigned long long rs = 0x123456789ABCDEFULL;
static unsigned rnd(void) {
  rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)(rs >> 32);
}

static struct entry **buckets;
static unsigned mask;

static unsigned slot(unsigned key) { return (key * 0x9E3779B1u) >> 7 & mask; }

static void insert(unsigned key, unsigned val) {
  struct entry *e = malloc(sizeof(struct entry));
  unsigned b = slot(key);
  if (!e) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  e->key = key;
  e->val = val;
  e->next = buckets[b];
  buckets[b] = e;
}

static struct entry *lookup(unsigned key) {
  struct entry *e = buckets[slot(key)];
  while (e && e->key != key) e = e->next;
  return e;
}

static int erase(unsigned key) {
  unsigned b = slot(key);
  struct entry *e = buckets[b], *prev = NULL;
  while (e && e->key != key) {
    prev = e;
    e = e->next;
  }
  if (!e) return 0;
  if (prev) prev->next = e->next;
  else buckets[b] = e->next;
  free(e);
  return 1;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000;
  int rounds = argc > 2 ? atoi(argv[2]) : 4, r;
  unsigned nb = 1, lo = 0, hi = 0, i;
  long long found = 0, checked = 0;
  unsigned long long vsum = 0;
  if (n < 16 || n > 100000000 || rounds < 0) {
    fprintf(stderr, "usage: hashtable [n 16..1e8] [rounds]\n");
    return 2;
  }
  while (nb * 4 < (unsigned)n) nb *= 2;
  mask = nb - 1;
  buckets = malloc(nb * sizeof(struct entry *));
  if (!buckets) return 2;
  for (i = 0; i < nb; i++) buckets[i] = NULL;

  for (; hi < (unsigned)n; hi++) insert(scramble(hi), hi * 3u);
  for (r = 0; r < rounds; r++) {
    long k;
    unsigned span = (unsigned)n * 2;
    for (k = 0; k < n; k++) {
      unsigned c = lo + rnd() % span - (unsigned)n / 2; /* may wrap: absent */
      struct entry *e = lookup(scramble(c));
      int inside = c - lo < hi - lo;
      if ((e != NULL) != inside || (e && e->val != c * 3u)) {
        printf("FAIL hashtable round=%d counter=%u present=%d expected=%d\n",
               r, c, e != NULL, inside);
        return 1;
      }
      found += inside;
    }
    for (k = 0; k < n / 8; k++, lo++)
      if (!erase(scramble(lo))) {
        printf("FAIL hashtable delete of counter %u\n", lo);
        return 1;
      }
    for (k = 0; k < n / 8; k++, hi++) insert(scramble(hi), hi * 3u);
  }
  /* final walk: exactly the window, right values */
  for (i = 0; i < nb; i++) {
    struct entry *e;
    for (e = buckets[i]; e; e = e->next) {
      if (e->val / 3u - lo >= hi - lo || scramble(e->val / 3u) != e->key) {
        printf("FAIL hashtable stray entry key=%u\n", e->key);
        return 1;
      }
      vsum += e->val;
      checked++;
    }
  }
  if (checked != (long long)(hi - lo)) {
    printf("FAIL hashtable walk found %lld entries, expected %u\n", checked,
           hi - lo);
    return 1;
  }
  for (i = 0; i < nb; i++)
    while (buckets[i]) {
      struct entry *e = buckets[i];
      buckets[i] = e->next;
      free(e);
    }
  free(buckets);
  printf("ok hashtable n=%ld rounds=%d found=%lld live=%lld valsum=%llu\n", n,
         rounds, found, checked, vsum);
  return 0;
}
