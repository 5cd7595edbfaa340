/* hand/hashtable.c - hashtable.c written by hand with 32-bit indices into
 * a typed pool (pool.h) instead of pointers: the baseline for what
 * compactptr automates.  Same algorithm and output as ../hashtable.c; the
 * bucket array holds indices too.
 *
 * Node: 12 bytes (two unsigned and a uint32_t index).
 * Usage and output: as ../hashtable.c. */
#include "pool.h"

struct entry {
  unsigned key;
  unsigned val;
  uint32_t next;
};
HAND_POOL(entries, struct entry, next)

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

static uint32_t *buckets;
static unsigned mask;

static unsigned slot(unsigned key) { return (key * 0x9E3779B1u) >> 7 & mask; }

static void insert(unsigned key, unsigned val) {
  uint32_t i = entries_alloc();
  struct entry *e = &entries[i];
  unsigned b = slot(key);
  e->key = key;
  e->val = val;
  e->next = buckets[b];
  buckets[b] = i;
}

static struct entry *lookup(unsigned key) {
  uint32_t i = buckets[slot(key)];
  while (i && entries[i].key != key) i = entries[i].next;
  return i ? &entries[i] : NULL;
}

static int erase(unsigned key) {
  unsigned b = slot(key);
  uint32_t i = buckets[b], prev = 0;
  while (i && entries[i].key != key) {
    prev = i;
    i = entries[i].next;
  }
  if (!i) return 0;
  if (prev) entries[prev].next = entries[i].next;
  else buckets[b] = entries[i].next;
  entries_free(i);
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
  buckets = malloc(nb * sizeof *buckets);
  if (!buckets) return 2;
  for (i = 0; i < nb; i++) buckets[i] = 0;

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
    uint32_t j;
    for (j = buckets[i]; j; j = entries[j].next) {
      const struct entry *e = &entries[j];
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
      uint32_t j = buckets[i];
      buckets[i] = entries[j].next;
      entries_free(j);
    }
  free(buckets);
  free(entries);
  printf("ok hashtable n=%ld rounds=%d found=%lld live=%lld valsum=%llu\n", n,
         rounds, found, checked, vsum);
  return 0;
}
