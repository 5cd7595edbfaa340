/* Arrays of compact structs whose elements' addresses are used as compact
 * pointers: a chained hash table of bucket heads with external linkage
 * (each entry points back at its bucket), a static grid of counters
 * reached through row pointers, a ring of cells whose static initializer
 * takes the addresses of its own elements, and a local array of heads
 * per call.  Walked by index, by pointer arithmetic and through an
 * ARRAY_SIZE macro. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBUCKETS 64
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct CP_COMPACT entry {
  long key;
  struct entry *chain;
  struct head *bucket;
};
struct CP_COMPACT head {
  struct entry *first;
  long count;
};
struct CP_COMPACT cell {
  struct cell *next;
  int weight;
};

struct head buckets[NBUCKETS];
static struct head grid[4][5];
static struct cell ring[5] = {
    {&ring[1], 3}, {&ring[2], 1}, {&ring[3], 4}, {&ring[4], 1}, {&ring[0], 5}};

static struct head *bucket_of(long key) {
  return buckets + (unsigned long)(key * 2654435761u) % ARRAY_SIZE(buckets);
}

static void insert(long key) {
  struct head *h = bucket_of(key);
  struct entry *e = malloc(sizeof *e);
  e->key = key;
  e->bucket = h;
  e->chain = h->first;
  h->first = e;
  h->count++;
  struct head *row = grid[key % 4];
  row[key % 5].count += key & 1;
}

static int lookup(long key) {
  for (struct entry *e = bucket_of(key)->first; e; e = e->chain)
    if (e->key == key)
      return e->bucket == bucket_of(key);
  return 0;
}

/* A local array of heads, allocated and freed with each call. */
static long scatter(int n) {
  struct head parts[3];
  memset(parts, 0, sizeof parts);
  for (int i = 0; i < n; i++) {
    struct entry *e = malloc(sizeof *e);
    e->key = i;
    e->bucket = &parts[i % 3];
    e->chain = parts[i % 3].first;
    parts[i % 3].first = e;
  }
  long sum = 0;
  for (struct head *h = parts; h < parts + ARRAY_SIZE(parts); h++)
    while (h->first) {
      struct entry *e = h->first;
      h->first = e->chain;
      sum += e->key * (h - parts + 1) + (e->bucket == h);
      free(e);
    }
  return sum;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 40000;
  for (long k = 0; k < n; k++)
    insert(k * 3 + 1);
  long found = 0, longest = 0, total = 0;
  for (long k = 0; k < n * 3; k++)
    found += lookup(k);
  for (size_t i = 0; i < ARRAY_SIZE(buckets); i++) {
    total += buckets[i].count;
    if (buckets[i].count > longest)
      longest = buckets[i].count;
  }
  long odd = 0;
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 5; c++)
      odd += grid[r][c].count * (r * 5 + c + 1);
  long spins = 0;
  struct cell *c = &ring[0];
  for (int i = 0; i < 12; i++, c = c->next)
    spins = spins * 7 + c->weight;
  long parts = 0;
  for (int i = 0; i < 50; i++)
    parts += scatter(200 + i);
  printf("found %ld of %ld, longest chain %ld, buckets %zu\n", found, total, longest,
         ARRAY_SIZE(buckets));
  printf("grid %ld, ring %ld (%zu cells), parts %ld\n", odd, spins, ARRAY_SIZE(ring), parts);
  return 0;
}
