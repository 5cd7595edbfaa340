/* chainhash.c - a chained hash map that grows, and an LRU list through it.
 *
 * In the style of the dictionaries of C servers and utility libraries:
 * entries chained per bucket through `next`, a bucket array of entry
 * pointers that doubles and is rehashed when the load passes 1, entries
 * kept in recency order on a doubly linked list, and the least recently
 * used ones evicted past a capacity.  Entries are made and linked by
 * GNU statement-expression macros that check the allocation and fill the
 * new object in (`ENTRY_NEW`, `ENTRY_PUSH`), as xmalloc-style code does.
 * The driver replays a
 * skewed stream of gets and puts.  Shapes: allocation macros that
 * initialize what they allocate, used as initializers, new values and
 * arguments; a heap array of node pointers grown with calloc and freed;
 * unlinking through a pointer to the previous link.
 *
 * Usage: chainhash [operations]      (default 400000)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT entry {
  unsigned long key;
  long value;
  struct entry *next;            /* bucket chain */
  struct entry *newer, *older;   /* recency list */
};

/* A new entry with its key and value, first in a chain. */
#define ENTRY_NEW(k, v, chain) __extension__({                      \
    struct entry *e_ = malloc(sizeof *e_);                          \
    if (e_ == NULL) { fputs("chainhash: no memory\n", stderr); exit(2); } \
    e_->key = (k); e_->value = (v); e_->next = (chain);             \
    e_->newer = e_->older = NULL;                                   \
    e_; })

/* The same with calloc, cleared again as careful code does. */
#define ENTRY_PUSH(k, chain) __extension__({                        \
    struct entry *p_ = calloc(1, sizeof(struct entry));             \
    if (!p_) exit(2);                                               \
    memset(p_, 0, sizeof *p_);                                      \
    p_->key = (k); p_->next = (chain);                              \
    p_; })

struct map {
  struct entry **buckets;
  unsigned long nbuckets, count, capacity;
  struct entry *newest, *oldest;
  unsigned long grows, evictions;
};

static unsigned long hash(unsigned long k)
{
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdUL;
  k ^= k >> 29;
  return k;
}

static void recency_unlink(struct map *m, struct entry *e)
{
  if (e->newer) e->newer->older = e->older; else m->newest = e->older;
  if (e->older) e->older->newer = e->newer; else m->oldest = e->newer;
  e->newer = e->older = NULL;
}

static void recency_push(struct map *m, struct entry *e)
{
  e->older = m->newest;
  e->newer = NULL;
  if (m->newest) m->newest->newer = e;
  m->newest = e;
  if (!m->oldest) m->oldest = e;
}

static void grow(struct map *m)
{
  unsigned long n = m->nbuckets * 2, i;
  struct entry **b = calloc(n, sizeof *b);
  if (!b) exit(2);
  for (i = 0; i < m->nbuckets; i++) {
    struct entry *e = m->buckets[i], *next;
    for (; e; e = next) {
      next = e->next;
      e->next = b[hash(e->key) & (n - 1)];
      b[hash(e->key) & (n - 1)] = e;
    }
  }
  free(m->buckets);
  m->buckets = b;
  m->nbuckets = n;
  m->grows++;
}

static void evict(struct map *m)
{
  struct entry *victim = m->oldest, **link;
  recency_unlink(m, victim);
  for (link = &m->buckets[hash(victim->key) & (m->nbuckets - 1)]; *link != victim; link = &(*link)->next)
    ;
  *link = victim->next;
  free(victim);
  m->count--;
  m->evictions++;
}

static struct entry *lookup(struct map *m, unsigned long key)
{
  struct entry *e = m->buckets[hash(key) & (m->nbuckets - 1)];
  while (e && e->key != key)
    e = e->next;
  return e;
}

static void put(struct map *m, unsigned long key, long value)
{
  struct entry *e = lookup(m, key);
  unsigned long h;
  if (e) {
    e->value = value;
    recency_unlink(m, e);
    recency_push(m, e);
    return;
  }
  if (m->count >= m->capacity)
    evict(m);
  if (m->count >= m->nbuckets)
    grow(m);
  h = hash(key) & (m->nbuckets - 1);
  if (key & 1) {
    m->buckets[h] = ENTRY_NEW(key, value, m->buckets[h]);
  } else {
    e = ENTRY_PUSH(key, m->buckets[h]);
    e->value = value;
    m->buckets[h] = e;
  }
  recency_push(m, m->buckets[h]);
  m->count++;
}

int main(int argc, char **argv)
{
  long ops = argc > 1 ? atol(argv[1]) : 400000, i, hits = 0, sum = 0;
  unsigned long x = 88172645463325252UL;
  struct map m = { NULL, 8, 0, 0, NULL, NULL, 0, 0 };
  struct entry *e;

  m.capacity = (unsigned long)ops / 4 + 16;
  m.buckets = calloc(m.nbuckets, sizeof *m.buckets);
  if (!m.buckets) return 2;
  for (i = 0; i < ops; i++) {
    unsigned long k;
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    /* Skewed: small keys come back often. */
    k = (x % 8 == 0) ? x % 1000003 : x % (m.capacity + m.capacity / 2);
    if ((x >> 20) % 3 == 0 && (e = lookup(&m, k)) != NULL) {
      hits++;
      sum += e->value;
      recency_unlink(&m, e);
      recency_push(&m, e);
    } else {
      put(&m, k, (long)(x >> 40) - (long)i);
    }
  }
  {
    long walk = 0, chk = 0;
    for (e = m.newest; e; e = e->older) {
      walk++;
      chk = (chk * 31 + (long)(e->key % 1000) + e->value) % 1000000007;
    }
    printf("ops %ld hits %ld sum %ld count %lu walk %ld grows %lu evictions %lu check %ld\n",
           ops, hits, sum, m.count, walk, m.grows, m.evictions, chk);
  }
  while (m.oldest)
    evict(&m);
  free(m.buckets);
  return 0;
}
