/* lru.c - a fixed-capacity LRU cache: hash chains plus a recency list.
 *
 * In the style of the caches in memcached, Redis and web proxies: every
 * item is on a hash chain (`h_next`) and on a doubly linked recency list
 * (`prev`/`next`) whose head and tail live in a cache struct; a hit moves
 * the item to the head, an insert into a full cache evicts the tail.  The
 * cache is one global struct (of a type that only holds pointers to
 * items) and every function takes `struct cache *`; unlink/link-at-head
 * are do { } while (0) macros; the bucket array is calloc'd.  A get/set
 * trace with a hot set and scans drives it, and a small second cache
 * shows two instances of the same code.  Shapes: a global of a struct
 * type that holds node pointers, passed by address; macros that update
 * several pointers; pointer-to-pointer deletion from a hash chain.
 *
 * Usage: lru [operations [capacity]]     (default 500000 30000)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT item {
  unsigned long key;
  long value;
  unsigned hits;
  struct item *prev, *next;      /* recency list, most recent first */
  struct item *h_next;           /* hash chain */
};

struct cache {
  struct item *head, *tail;
  struct item **buckets;
  unsigned nbuckets;
  unsigned count, capacity;
  unsigned long gets, hits, evictions;
};

static struct cache main_cache, side_cache;

#define LRU_UNLINK(c, it)                                               \
  do {                                                                  \
    if ((it)->prev) (it)->prev->next = (it)->next; else (c)->head = (it)->next; \
    if ((it)->next) (it)->next->prev = (it)->prev; else (c)->tail = (it)->prev; \
    (it)->prev = (it)->next = NULL;                                     \
  } while (0)

#define LRU_PUSH_HEAD(c, it)                                            \
  do {                                                                  \
    (it)->prev = NULL;                                                  \
    (it)->next = (c)->head;                                             \
    if ((c)->head) (c)->head->prev = (it); else (c)->tail = (it);       \
    (c)->head = (it);                                                   \
  } while (0)

static unsigned hashkey(const struct cache *c, unsigned long key)
{
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccdUL;
  key ^= key >> 33;
  return (unsigned)(key & (c->nbuckets - 1));
}

static void cache_init(struct cache *c, unsigned capacity)
{
  memset(c, 0, sizeof *c);
  c->capacity = capacity;
  c->nbuckets = 1;
  while (c->nbuckets < capacity)
    c->nbuckets <<= 1;
  c->buckets = calloc(c->nbuckets, sizeof(struct item *));
}

static struct item *cache_find(struct cache *c, unsigned long key)
{
  struct item *it;

  for (it = c->buckets[hashkey(c, key)]; it; it = it->h_next)
    if (it->key == key)
      return it;
  return NULL;
}

static void hash_remove(struct cache *c, struct item *victim)
{
  struct item **pp = &c->buckets[hashkey(c, victim->key)];

  while (*pp != victim)
    pp = &(*pp)->h_next;
  *pp = victim->h_next;
}

static int cache_get(struct cache *c, unsigned long key, long *value)
{
  struct item *it = cache_find(c, key);

  c->gets++;
  if (!it)
    return 0;
  c->hits++;
  it->hits++;
  LRU_UNLINK(c, it);
  LRU_PUSH_HEAD(c, it);
  *value = it->value;
  return 1;
}

static void cache_set(struct cache *c, unsigned long key, long value)
{
  struct item *it = cache_find(c, key);
  unsigned b;

  if (it) {
    it->value = value;
    LRU_UNLINK(c, it);
    LRU_PUSH_HEAD(c, it);
    return;
  }
  if (c->count == c->capacity) {
    struct item *victim = c->tail;

    LRU_UNLINK(c, victim);
    hash_remove(c, victim);
    free(victim);
    c->count--;
    c->evictions++;
  }
  it = malloc(sizeof(struct item));
  it->key = key;
  it->value = value;
  it->hits = 0;
  b = hashkey(c, key);
  it->h_next = c->buckets[b];
  c->buckets[b] = it;
  LRU_PUSH_HEAD(c, it);
  c->count++;
}

static void cache_report(const char *name, struct cache *c)
{
  struct item *it;
  unsigned long sum = 0, n = 0;

  for (it = c->head; it; it = it->next)
    sum = sum * 1000003 + it->key * 7 + it->hits + (unsigned long)(n++);
  printf("%s: %u items, %lu gets, %lu hits, %lu evictions, order checksum %lu\n", name,
         c->count, c->gets, c->hits, c->evictions, sum % 1000000007UL);
}

static void cache_destroy(struct cache *c)
{
  while (c->head) {
    struct item *it = c->head;

    c->head = it->next;
    free(it);
  }
  free(c->buckets);
  c->buckets = NULL;
  c->tail = NULL;
}

int main(int argc, char *argv[])
{
  long ops = argc > 1 ? atol(argv[1]) : 500000, i, v, misses_filled = 0;
  unsigned cap = argc > 2 ? (unsigned)atol(argv[2]) : 30000;
  unsigned long x = 0x853c49e6748fea9bUL;

  cache_init(&main_cache, cap);
  cache_init(&side_cache, cap / 16 + 1);
  for (i = 0; i < ops; i++) {
    unsigned long key;

    x = x * 6364136223846793005UL + 1442695040888963407UL;
    if ((x >> 60) < 9)
      key = (x >> 20) % (cap / 2);             /* hot set */
    else if ((x >> 60) < 13)
      key = 1000000 + (unsigned long)i;        /* scan: never reused */
    else
      key = (x >> 20) % (cap * 4);             /* warm */
    if (!cache_get(&main_cache, key, &v)) {
      cache_set(&main_cache, key, (long)(key * 3 + 1));
      misses_filled++;
    }
    if (i % 3 == 0 && !cache_get(&side_cache, key % 4096, &v))
      cache_set(&side_cache, key % 4096, (long)key);
  }
  printf("misses filled %ld\n", misses_filled);
  cache_report("main", &main_cache);
  cache_report("side", &side_cache);
  cache_destroy(&main_cache);
  cache_destroy(&side_cache);
  return 0;
}
