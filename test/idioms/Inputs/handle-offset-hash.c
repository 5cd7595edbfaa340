/* An intrusive hash table in the manner of uthash: every element embeds a
 * handle; the table keeps the handle's offset in the element, measured at
 * run time when the first element is added (`tbl->hho`), and gets from a
 * handle back to its element with `(char *)hh - tbl->hho`.  Elements are
 * also threaded in insertion order through `void *` links. */
#include <compactptr.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hh_table;
typedef struct hh {
  struct hh_table *tbl;
  void *prev, *next;           /* elements, in insertion order */
  struct hh *chain;            /* next handle in the bucket */
  const void *key;
  unsigned keylen, hashv;
} hh_t;
struct hh_table {
  hh_t **buckets;
  unsigned nbuckets, count;
  hh_t *tail;
  ptrdiff_t hho;
};

#define ELMT_OF(tbl, h) ((void *)((char *)(h) - (tbl)->hho))
#define HH_OF(tbl, e) ((hh_t *)(void *)((char *)(e) + (tbl)->hho))

static unsigned hash_bytes(const void *k, unsigned n) {
  const unsigned char *p = k;
  unsigned h = 2166136261u;
  while (n--)
    h = (h ^ *p++) * 16777619u;
  return h;
}

#define HASH_ADD(head, field, add)                                          \
  do {                                                                      \
    (add)->field.key = &(add)->id;                                          \
    (add)->field.keylen = sizeof((add)->id);                                \
    (add)->field.hashv = hash_bytes(&(add)->id, sizeof((add)->id));         \
    (add)->field.next = NULL;                                               \
    if (!(head)) {                                                          \
      (head) = (add);                                                       \
      (add)->field.prev = NULL;                                             \
      (add)->field.tbl = calloc(1, sizeof(struct hh_table));                \
      (add)->field.tbl->nbuckets = 64;                                      \
      (add)->field.tbl->buckets = calloc(64, sizeof(hh_t *));               \
      (add)->field.tbl->hho = (char *)(&(add)->field) - (char *)(add);      \
    } else {                                                                \
      (add)->field.tbl = (head)->field.tbl;                                 \
      (add)->field.prev = ELMT_OF((head)->field.tbl, (head)->field.tbl->tail); \
      (head)->field.tbl->tail->next = (add);                                \
    }                                                                       \
    (head)->field.tbl->tail = &(add)->field;                                \
    (head)->field.tbl->count++;                                             \
    hh_t **b_ = &(head)->field.tbl->buckets[(add)->field.hashv %            \
                                            (head)->field.tbl->nbuckets];   \
    (add)->field.chain = *b_;                                               \
    *b_ = &(add)->field;                                                    \
  } while (0)

#define HASH_FIND(head, field, keyp, out)                                   \
  do {                                                                      \
    (out) = NULL;                                                           \
    if (head) {                                                             \
      struct hh_table *t_ = (head)->field.tbl;                              \
      unsigned h_ = hash_bytes((keyp), sizeof *(keyp));                     \
      for (hh_t *c_ = t_->buckets[h_ % t_->nbuckets]; c_; c_ = c_->chain)   \
        if (c_->hashv == h_ && !memcmp(c_->key, (keyp), c_->keylen)) {      \
          (out) = ELMT_OF(t_, c_);                                          \
          break;                                                            \
        }                                                                   \
    }                                                                       \
  } while (0)

struct CP_COMPACT user {
  int id;
  struct user *friend;
  char name[12];
  hh_t hh;
};

int main(void) {
  struct user *users = NULL;
  for (int i = 0; i < 5000; i++) {
    struct user *u = malloc(sizeof *u);
    memset(u, 0, sizeof *u);
    u->id = i * 7 + 3;
    snprintf(u->name, sizeof u->name, "u%d", i);
    HASH_ADD(users, hh, u);
  }
  /* Link friends through lookups. */
  long found = 0;
  for (int i = 0; i < 5000; i++) {
    int k = i * 7 + 3, f = ((i * 31) % 5000) * 7 + 3;
    struct user *a, *b;
    HASH_FIND(users, hh, &k, a);
    HASH_FIND(users, hh, &f, b);
    if (a && b) {
      a->friend = b;
      found++;
    }
  }
  /* Walk in insertion order, then back from the tail through prev. */
  unsigned long sum = 0;
  for (struct user *u = users; u; u = u->hh.next)
    sum = sum * 31 + (unsigned)u->friend->id + strlen(u->name);
  struct user *last = ELMT_OF(users->hh.tbl, users->hh.tbl->tail);
  unsigned back = 0;
  for (struct user *u = last; u; u = u->hh.prev)
    back++;
  printf("%u users, %ld linked, back %u, sum %lu\n", users->hh.tbl->count,
         found, back, sum);
  struct hh_table *t = users->hh.tbl;
  for (struct user *u = users, *n; u; u = n) {
    n = u->hh.next;
    free(u);
  }
  free(t->buckets);
  free(t);
  return 0;
}
