/* radixlist.c - bucket and radix sorting of linked records.
 *
 * In the style of list-sorting code in C libraries and textbooks (Knuth's
 * list radix sort, the bucket arrays of BSD's radixsort): records are read
 * one by one and appended to one of 256 buckets by their top byte; each
 * bucket is a head/tail pair of record pointers, so the bucket table is
 * an array of arrays of pointers, `struct rec *(*bucket)[2] =
 * calloc(256, sizeof *bucket)`.  An index of the records in input order is
 * grown with reallocarray (the OpenBSD idiom) while they are read.  Each
 * bucket is then sorted by an LSD radix sort on the lower bytes with a
 * table of the same shape, the buckets are concatenated, and the result is
 * checked against qsort over the index and searched with bsearch.  The
 * temporary arrays are released through a `void *` helper.  Shapes:
 * pointer-to-array-of-pointers allocation, reallocarray, arrays of node
 * pointers freed through a generic function, qsort/bsearch comparators on
 * `struct rec *const *`.
 *
 * Usage: radixlist [records]       (default 200000)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT rec {
  unsigned key;
  unsigned seq;                  /* input order: shows stability */
  struct rec *next;
};

static void xfree(void *p)
{
  free(p);
}

/* LSD radix sort of one list on the bytes below `bytes` */
static struct rec *radix_sort(struct rec *list, int bytes)
{
  struct rec *(*bucket)[2] = calloc(256, sizeof *bucket);
  int pass, d;

  for (pass = 0; pass < bytes; pass++) {
    struct rec *r, *next, *head = NULL, *tail = NULL;
    int shift = 8 * pass;

    for (d = 0; d < 256; d++)
      bucket[d][0] = bucket[d][1] = NULL;
    for (r = list; r; r = next) {
      next = r->next;
      d = (r->key >> shift) & 0xff;
      r->next = NULL;
      if (bucket[d][1])
        bucket[d][1]->next = r;
      else
        bucket[d][0] = r;
      bucket[d][1] = r;
    }
    for (d = 0; d < 256; d++)
      if (bucket[d][0]) {
        if (tail)
          tail->next = bucket[d][0];
        else
          head = bucket[d][0];
        tail = bucket[d][1];
      }
    list = head;
  }
  xfree(bucket);
  return list;
}

static int cmp_rec(const void *a, const void *b)
{
  const struct rec *x = *(struct rec *const *)a, *y = *(struct rec *const *)b;

  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_key(const void *k, const void *b)
{
  unsigned key = *(const unsigned *)k;
  const struct rec *y = *(struct rec *const *)b;

  return key < y->key ? -1 : key > y->key;
}

int main(int argc, char *argv[])
{
  long n = argc > 1 ? atol(argv[1]) : 200000, i;
  struct rec *(*bucket)[2] = calloc(256, sizeof *bucket);
  struct rec *list = NULL, *tail = NULL, *r, **byseq = NULL, **sorted;
  size_t cap = 0, len = 0, k, mismatches = 0, found = 0;
  unsigned x = 2166136261u;
  unsigned long sum = 0;
  int d;

  for (i = 0; i < n; i++) {      /* read: append to the bucket of the top byte */
    x = (x ^ (unsigned)i) * 16777619u;
    r = malloc(sizeof *r);
    r->key = x % 3 == 0 ? x % 1000 : x;   /* many duplicates among the small keys */
    r->seq = (unsigned)i;
    r->next = NULL;
    d = (int)(r->key >> 24);
    if (bucket[d][1])
      bucket[d][1]->next = r;
    else
      bucket[d][0] = r;
    bucket[d][1] = r;
    if (len == cap) {
      size_t ncap = cap ? cap * 2 : 16;
      struct rec **nv = reallocarray(byseq, ncap, sizeof *byseq);

      if (!nv) {
        perror("reallocarray");
        return 1;
      }
      byseq = nv;
      cap = ncap;
    }
    byseq[len++] = r;
  }
  for (d = 0; d < 256; d++)      /* sort each bucket, concatenate */
    if (bucket[d][0]) {
      struct rec *s = radix_sort(bucket[d][0], 3);

      if (tail)
        tail->next = s;
      else
        list = s;
      for (tail = s; tail->next; tail = tail->next)
        ;
    }
  xfree(bucket);
  sorted = reallocarray(NULL, len, sizeof *sorted);
  for (k = 0; k < len; k++)
    sorted[k] = byseq[len - 1 - k];
  qsort(sorted, len, sizeof *sorted, cmp_rec);
  for (r = list, k = 0; r; r = r->next, k++) {
    if (k >= len || sorted[k] != r)
      mismatches++;
    sum = sum * 31 + r->key + r->seq % 7;
  }
  for (k = 0; k < len; k += len / 1000 + 1)
    sum = sum * 7 + byseq[k]->key % 1000;
  for (k = 0; k < 1000; k++) {
    unsigned key = (unsigned)(k * 7919 % 1000);

    found += bsearch(&key, sorted, len, sizeof *sorted, cmp_key) != NULL;
  }
  printf("%zu records sorted, %zu mismatches against qsort, checksum %lu\n", len, mismatches,
         sum % 1000000007UL);
  printf("first %u/%u last %u/%u, %zu of 1000 small keys present\n", sorted[0]->key,
         sorted[0]->seq, sorted[len - 1]->key, sorted[len - 1]->seq, found);
  xfree(sorted);
  xfree(byseq);
  while (list) {
    r = list->next;
    free(list);
    list = r;
  }
  return 0;
}
