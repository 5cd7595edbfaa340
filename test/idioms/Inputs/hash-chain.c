/* A chained hash table whose insert, update and delete walk the chain
 * through `struct ent **`: the first slot is in the bucket array (a root
 * array), every later one is the `next` handle field of a heap entry.
 * Chains are kept sorted, so an insert walks to its place.
 * The walks poll for the switch at every step, so with a small arena the
 * switch happens while a walk holds a pointer into a handle field; the
 * plugin's build says so on stderr ("switched inside a walk").
 * Usage: hash-chain [operations]       (default 60000) */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT ent {
  unsigned key;
  long val;
  struct ent *next;
};

#define NBUCKETS 1024u
static struct ent **table;
static int switched_in_walk;

static void step(void) {
#ifdef COMPACTPTR_RUNTIME
  int was = cp_is_compact();
  cp_safepoint();
  if (was && !cp_is_compact())
    switched_in_walk = 1;
#else
  cp_safepoint();
#endif
}

/* Chains are sorted by key.  The new entry is allocated before the walk
 * (so the allocation that makes the switch pending comes before the walk's
 * polls), and freed again if the key is there already. */
static void put(unsigned k, long v) {
  struct ent *e = malloc(sizeof *e);
  struct ent **pe = &table[k % NBUCKETS];
  while (*pe && (*pe)->key < k) {
    pe = &(*pe)->next;
    step();
  }
  if (*pe && (*pe)->key == k) {
    (*pe)->val += v;
    free(e);
    return;
  }
  e->key = k;
  e->val = v;
  e->next = *pe;
  *pe = e;
}

static int del(unsigned k) {
  struct ent **pe = &table[k % NBUCKETS];
  while (*pe) {
    if ((*pe)->key == k) {
      struct ent *dead = *pe;
      *pe = dead->next;
      free(dead);
      return 1;
    }
    pe = &(*pe)->next;
    step();
  }
  return 0;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 60000;
  unsigned x = 12345;
  long deleted = 0, sum = 0, count = 0;
  table = calloc(NBUCKETS, sizeof(struct ent *));
  for (int i = 0; i < n; i++) {
    x = x * 1103515245u + 12345u;
    unsigned k = (x >> 8) % (unsigned)(n / 2 + 1);
    if (i % 4 == 3)
      deleted += del(k);
    else
      put(k, (long)(x & 1023));
  }
  for (unsigned b = 0; b < NBUCKETS; b++)
    for (struct ent *e = table[b]; e; e = e->next) {
      sum += e->val * (long)(e->key % 97);
      count++;
    }
  printf("%ld entries, %ld deleted, checksum %ld\n", count, deleted, sum);
  if (switched_in_walk)
    fprintf(stderr, "switched inside a walk\n");
  for (unsigned b = 0; b < NBUCKETS; b++)
    while (table[b])
      del(table[b]->key);
  free(table);
  return 0;
}
