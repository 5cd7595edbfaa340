/* wordfreq.c - word frequencies in a chained hash table.
 *
 * In the style of the hash tables of K&R section 6.6 and of countless
 * tools built on it: a bucket array of list heads allocated with calloc,
 * entries holding a strdup'd key, lookup-or-insert at the head of the
 * chain, deletion through a pointer to the link that points at the entry
 * (`struct nlist **pp = &hashtab[h]; ... pp = &(*pp)->next`), and growth
 * by rehashing every chain into a bucket array twice the size.  Rare
 * words are then pruned, and the survivors are sorted with qsort by a
 * comparator over an array of entry pointers.  Shapes: pointer-to-pointer
 * walks into `next` fields, a root array of list heads, `char *` fields
 * in nodes, qsort over node pointers, the K&R hash function.
 *
 * Usage: wordfreq [words]       (default 250000)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT nlist {        /* table entry: */
  struct nlist *next;            /* next entry in chain */
  char *name;                    /* the word */
  long count;
};

static struct nlist **hashtab;
static unsigned hashsize = 64;
static unsigned nentries;

static unsigned hash(const char *s)
{
  unsigned hashval;

  for (hashval = 0; *s != '\0'; s++)
    hashval = *s + 31 * hashval;
  return hashval;
}

static void grow(void)
{
  unsigned newsize = hashsize * 2, i;
  struct nlist **newtab = calloc(newsize, sizeof(struct nlist *));
  struct nlist *np, *next;

  for (i = 0; i < hashsize; i++)
    for (np = hashtab[i]; np != NULL; np = next) {
      unsigned h = hash(np->name) % newsize;

      next = np->next;
      np->next = newtab[h];
      newtab[h] = np;
    }
  free(hashtab);
  hashtab = newtab;
  hashsize = newsize;
}

/* lookup: look for s in hashtab */
static struct nlist *lookup(const char *s)
{
  struct nlist *np;

  for (np = hashtab[hash(s) % hashsize]; np != NULL; np = np->next)
    if (strcmp(s, np->name) == 0)
      return np;
  return NULL;
}

/* install: count one more s */
static struct nlist *install(const char *s)
{
  struct nlist *np;
  unsigned hashval;

  if ((np = lookup(s)) == NULL) {
    if (nentries >= hashsize * 2)
      grow();
    np = (struct nlist *)malloc(sizeof(*np));
    if (np == NULL || (np->name = strdup(s)) == NULL)
      return NULL;
    np->count = 0;
    hashval = hash(s) % hashsize;
    np->next = hashtab[hashval];
    hashtab[hashval] = np;
    nentries++;
  }
  np->count++;
  return np;
}

/* undef: remove s; returns 1 if it was there */
static int undef(const char *s)
{
  struct nlist **pp, *np;

  for (pp = &hashtab[hash(s) % hashsize]; (np = *pp) != NULL; pp = &np->next)
    if (strcmp(s, np->name) == 0) {
      *pp = np->next;
      free(np->name);
      free(np);
      nentries--;
      return 1;
    }
  return 0;
}

/* prune: drop every entry seen fewer than min times, chain by chain */
static unsigned prune(long min)
{
  unsigned i, dropped = 0;

  for (i = 0; i < hashsize; i++) {
    struct nlist **pp = &hashtab[i];

    while (*pp) {
      struct nlist *np = *pp;

      if (np->count < min) {
        *pp = np->next;
        free(np->name);
        free(np);
        dropped++;
      } else {
        pp = &(*pp)->next;
      }
    }
  }
  nentries -= dropped;
  return dropped;
}

static int bycount(const void *a, const void *b)
{
  const struct nlist *x = *(struct nlist *const *)a, *y = *(struct nlist *const *)b;

  if (x->count != y->count)
    return x->count < y->count ? 1 : -1;
  return strcmp(x->name, y->name);
}

static unsigned long seed = 1;
static void getword(char *w)     /* Zipf-like: short words are common */
{
  static const char letters[] = "etaoinshrdlucmfwyp";
  int len, i;

  seed = seed * 1103515245 + 12345;
  len = 1 + (int)((seed >> 16) % 7);
  if (len > 3 && (seed >> 24) % 3)
    len -= 2;
  for (i = 0; i < len; i++) {
    seed = seed * 1103515245 + 12345;
    w[i] = letters[(seed >> 16) % (i == 0 ? 6 : 18)];
  }
  w[len] = '\0';
}

int main(int argc, char *argv[])
{
  long n = argc > 1 ? atol(argv[1]) : 250000, i, total = 0;
  char w[16];
  struct nlist **all, *np;
  unsigned k, j, removed = 0, dropped;

  hashtab = calloc(hashsize, sizeof(struct nlist *));
  for (i = 0; i < n; i++) {
    getword(w);
    install(w);
  }
  printf("%ld words, %u distinct, %u buckets\n", n, nentries, hashsize);
  for (i = 0; i < n / 10; i++) {
    getword(w);
    removed += undef(w);
  }
  dropped = prune(3);
  printf("undef removed %u, prune dropped %u, %u left\n", removed, dropped, nentries);
  all = malloc(nentries * sizeof(struct nlist *));
  for (k = 0, j = 0; k < hashsize; k++)
    for (np = hashtab[k]; np != NULL; np = np->next) {
      all[j++] = np;
      total += np->count;
    }
  qsort(all, j, sizeof all[0], bycount);
  printf("total count %ld; top:", total);
  for (k = 0; k < 8 && k < j; k++)
    printf(" %s=%ld", all[k]->name, all[k]->count);
  printf("\n");
  free(all);
  for (k = 0; k < hashsize; k++)
    while (hashtab[k]) {
      np = hashtab[k];
      hashtab[k] = np->next;
      free(np->name);
      free(np);
    }
  free(hashtab);
  return 0;
}
