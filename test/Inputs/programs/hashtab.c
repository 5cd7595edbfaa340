/* hashtab.c - chained hash table whose bucket array is a heap array of
 * compact pointers (a root array: malloc / calloc (n * sizeof(struct entry
 * *))), rehashing into a new bucket array, a realloc-grown root array used
 * as an insertion log, inserts, lookups, updates, deletes (bucket head
 * through `struct entry **head = &slots[i]`, a native slot), a char array
 * field next to the handle, and a full free.
 * Usage: hashtab [n]   (default 5000) */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT entry {
  unsigned key;
  int value;
  struct entry *next;
  char tag[6];
};

struct table {
  struct entry **slots;
  unsigned nslots;
  unsigned count;
};

static unsigned rs = 2463534242u;
static unsigned xs32(void) {
  rs ^= rs << 13;
  rs ^= rs >> 17;
  rs ^= rs << 5;
  return rs;
}

static unsigned hashu(unsigned k) {
  k ^= k >> 16;
  k *= 0x45d9f3bu;
  k ^= k >> 16;
  return k;
}

static void table_init(struct table *t, unsigned n) {
  t->slots = calloc(n, sizeof(struct entry *));
  if (!t->slots) exit(2);
  t->nslots = n;
  t->count = 0;
}

static void rehash(struct table *t) {
  unsigned n = t->nslots * 2, i;
  struct entry **ns = malloc(n * sizeof(struct entry *));
  if (!ns) exit(2);
  for (i = 0; i < n; i++) ns[i] = NULL;
  for (i = 0; i < t->nslots; i++) {
    struct entry *e = t->slots[i];
    while (e) {
      struct entry *nx = e->next;
      unsigned b = hashu(e->key) & (n - 1);
      e->next = ns[b];
      ns[b] = e;
      e = nx;
    }
  }
  free(t->slots);
  t->slots = ns;
  t->nslots = n;
}

static struct entry *lookup(const struct table *t, unsigned key) {
  struct entry *e = t->slots[hashu(key) & (t->nslots - 1)];
  while (e && e->key != key) e = e->next;
  return e;
}

/* Returns the entry (new or existing). */
static struct entry *insert(struct table *t, unsigned key, int value) {
  struct entry *e = lookup(t, key);
  unsigned b;
  if (e) {
    e->value += value;
    return e;
  }
  if (t->count >= t->nslots) rehash(t);
  e = malloc(sizeof(struct entry));
  if (!e) exit(2);
  e->key = key;
  e->value = value;
  snprintf(e->tag, sizeof e->tag, "k%u", key % 10000);
  b = hashu(key) & (t->nslots - 1);
  e->next = t->slots[b];
  t->slots[b] = e;
  t->count++;
  return e;
}

/* Deletes key; the bucket head goes through a pointer to the bucket slot
 * (a native slot), the rest of the chain through cur->next (the address of a
 * compact field cannot be taken). */
static int erase(struct table *t, unsigned key) {
  struct entry **head = &t->slots[hashu(key) & (t->nslots - 1)];
  struct entry *cur = *head;
  if (!cur) return 0;
  if (cur->key == key) {
    *head = cur->next;
    free(cur);
    t->count--;
    return 1;
  }
  for (; cur->next; cur = cur->next)
    if (cur->next->key == key) {
      struct entry *dead = cur->next;
      cur->next = dead->next;
      free(dead);
      t->count--;
      return 1;
    }
  return 0;
}

static unsigned long table_hash(const struct table *t, unsigned *maxchain) {
  unsigned long h = 0;
  unsigned i;
  *maxchain = 0;
  for (i = 0; i < t->nslots; i++) {
    unsigned c = 0;
    const struct entry *e;
    for (e = t->slots[i]; e; e = e->next) {
      /* order-independent within a bucket */
      h += (unsigned long)hashu(e->key ^ (unsigned)e->value) + (unsigned char)e->tag[1];
      c++;
    }
    if (c > *maxchain) *maxchain = c;
  }
  return h;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : 5000;
  struct table t;
  struct entry **log = NULL;
  long logn = 0, logcap = 0, i, hits = 0, erased = 0, agree = 0;
  unsigned keyspace, maxc;
  unsigned long h;
  if (n < 8) n = 8;
  keyspace = (unsigned)n * 2;
  table_init(&t, 16);

  for (i = 0; i < n; i++) {
    struct entry *e = insert(&t, xs32() % keyspace, (int)(i & 0xff));
    if (logn == logcap) {
      logcap = logcap ? logcap * 2 : 8;
      log = realloc(log, (size_t)logcap * sizeof(struct entry *));
      if (!log) exit(2);
    }
    log[logn++] = e;
  }
  h = table_hash(&t, &maxc);
  printf("inserted count=%u slots=%u maxchain=%u hash=%lu\n", t.count,
         t.nslots, maxc, h);
  /* every logged entry is still reachable by its key */
  for (i = 0; i < logn; i++)
    if (lookup(&t, log[i]->key) == log[i]) agree++;
  printf("log entries=%ld agree=%ld first_tag=%s\n", logn, agree, log[0]->tag);
  free(log); /* it would dangle after the deletes below */
  log = NULL;

  for (i = 0; i < n; i++)
    if (lookup(&t, xs32() % keyspace)) hits++;
  for (i = 0; i < n; i++) erased += erase(&t, xs32() % keyspace);
  h = table_hash(&t, &maxc);
  printf("hits=%ld erased=%ld count=%u maxchain=%u hash=%lu\n", hits, erased,
         t.count, maxc, h);

  /* empty the table bucket by bucket */
  {
    unsigned b;
    long freed = 0;
    for (b = 0; b < t.nslots; b++)
      while (t.slots[b]) {
        struct entry *e = t.slots[b];
        t.slots[b] = e->next;
        free(e);
        freed++;
      }
    printf("freed=%ld\n", freed);
  }
  free(t.slots);
  return 0;
}
