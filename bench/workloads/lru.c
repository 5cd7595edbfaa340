/* lru.c - a small LRU cache: a chained hash table and a doubly linked
 * recency list over the same entries (a small heap: under 1 MiB natively).
 *
 * A cache of `cap` entries serves `requests` lookups of keys drawn from a
 * skewed distribution over 4 * cap keys (the minimum of two uniform draws,
 * so small keys are hot).  A hit moves the entry to the front of the
 * recency list; a miss inserts the key, evicting the least recently used
 * entry (unlinked from its hash chain and the list, and freed) when the
 * cache is full.  Buckets are a root array (malloc(nb * sizeof(struct
 * entry *))), one bucket per entry.  Self-check: every hit returns the
 * value stored for its key, the list and the chains hold the same `cap`
 * entries at the end, and the list is consistent in both directions.
 *
 * Node: 32 bytes native (malloc chunk 48), 20 bytes compact.
 * Usage: lru [cap] [requests]   defaults: 8192 2000000 (quick);
 *   full: 8192 40000000
 * Output: "ok lru cap=... requests=... hits=..." or "FAIL ..." with exit 1. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT entry {
  unsigned key;
  unsigned val;
  struct entry *prev, *next; /* recency list: head is the most recent */
  struct entry *hnext;       /* hash chain */
};

static unsigned long long rs = 0x243F6A8885A308D3ULL;
static unsigned rnd(void) {
  rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)(rs >> 33);
}

static struct entry **buckets;
static unsigned mask;
static struct entry *head, *tail;
static long live;

static unsigned slot(unsigned key) { return (key * 0x9E3779B1u) >> 5 & mask; }
static unsigned value_of(unsigned key) { return key * 2654435761u ^ 0x5bd1e995u; }

static void list_unlink(struct entry *e) {
  if (e->prev) e->prev->next = e->next;
  else head = e->next;
  if (e->next) e->next->prev = e->prev;
  else tail = e->prev;
}

static void list_push_front(struct entry *e) {
  e->prev = NULL;
  e->next = head;
  if (head) head->prev = e;
  else tail = e;
  head = e;
}

static struct entry *find(unsigned key) {
  struct entry *e = buckets[slot(key)];
  while (e && e->key != key) e = e->hnext;
  return e;
}

static void evict(void) {
  struct entry *e = tail, *p, *prev = NULL;
  unsigned b = slot(e->key);
  list_unlink(e);
  for (p = buckets[b]; p != e; p = p->hnext) prev = p;
  if (prev) prev->hnext = e->hnext;
  else buckets[b] = e->hnext;
  free(e);
  live--;
}

int main(int argc, char **argv) {
  long cap = argc > 1 ? atol(argv[1]) : 8192;
  long requests = argc > 2 ? atol(argv[2]) : 2000000, i;
  long long hits = 0;
  unsigned nb = 1, keys, k;
  struct entry *e;
  if (cap < 1 || cap > 10000000 || requests < 0) {
    fprintf(stderr, "usage: lru [cap 1..1e7] [requests]\n");
    return 2;
  }
  while (nb < (unsigned)cap) nb *= 2;
  mask = nb - 1;
  buckets = malloc(nb * sizeof(struct entry *));
  if (!buckets) return 2;
  for (k = 0; k < nb; k++) buckets[k] = NULL;
  keys = (unsigned)cap * 4;
  for (i = 0; i < requests; i++) {
    unsigned a = rnd() % keys, b = rnd() % keys, key = a < b ? a : b;
    e = find(key);
    if (e) {
      if (e->val != value_of(key)) {
        printf("FAIL lru request=%ld key=%u value=%u\n", i, key, e->val);
        return 1;
      }
      hits++;
      if (e != head) {
        list_unlink(e);
        list_push_front(e);
      }
      continue;
    }
    if (live == cap) evict();
    e = malloc(sizeof(struct entry));
    if (!e) {
      fprintf(stderr, "out of memory\n");
      return 2;
    }
    e->key = key;
    e->val = value_of(key);
    e->hnext = buckets[slot(key)];
    buckets[slot(key)] = e;
    list_push_front(e);
    live++;
  }
  { /* the list and the chains hold the same entries */
    long n = 0, m = 0;
    for (e = head; e; e = e->next, n++)
      if ((e->next ? e->next->prev : tail) != e || find(e->key) != e) {
        printf("FAIL lru list entry key=%u\n", e->key);
        return 1;
      }
    for (k = 0; k < nb; k++)
      for (e = buckets[k]; e; e = e->hnext) m++;
    if (n != live || m != live) {
      printf("FAIL lru list %ld chains %ld live %ld\n", n, m, live);
      return 1;
    }
  }
  while (head) {
    e = head;
    head = e->next;
    free(e);
  }
  free(buckets);
  printf("ok lru cap=%ld requests=%ld hits=%lld live=%ld\n", cap, requests,
         hits, live);
  return 0;
}
