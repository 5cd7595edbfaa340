/* knr.c - old-style C: the K&R prototypes old programs declare instead of
 * including <stdlib.h> (`extern void *malloc(unsigned);`, `extern void
 * free();`), K&R-style function definitions with parameter declaration
 * lists, including compact-pointer parameters, and implicit-int-free but
 * otherwise 1980s-shaped code.  The allocation sizes are still sizeof of the
 * type, as the storage rule requires.
 * Usage: knr [n]   (default 2000) */
#include <compactptr.h>
#include <stdio.h>

/* Compilers warn that these redeclare library functions with other types;
 * that is the point of the test, so silence exactly those warnings. */
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wincompatible-library-redeclaration"
#pragma clang diagnostic ignored "-Wdeprecated-non-prototype"
#elif defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wbuiltin-declaration-mismatch"
#pragma GCC diagnostic ignored "-Wold-style-definition"
#endif

extern void *malloc(unsigned);
extern void free();
extern long strtol();

struct CP_COMPACT cons {
  int car;
  struct cons *cdr;
};

static unsigned seedv = 31337;

static int rnd(bound)
int bound;
{
  seedv = seedv * 69069u + 1u;
  return (int)((seedv >> 8) % (unsigned)bound);
}

static struct cons *cons(car, cdr)
int car;
struct cons *cdr;
{
  struct cons *c;
  c = (struct cons *)malloc(sizeof(struct cons));
  c->car = car;
  c->cdr = cdr;
  return c;
}

static long length(l)
struct cons *l;
{
  long n = 0;
  while (l) n++, l = l->cdr;
  return n;
}

/* Destructive merge of two sorted lists. */
static struct cons *merge(a, b)
struct cons *a, *b;
{
  struct cons *head = 0, *tail = 0, *t;
  while (a && b) {
    if (a->car <= b->car) t = a, a = a->cdr;
    else t = b, b = b->cdr;
    if (tail) tail->cdr = t;
    else head = t;
    tail = t;
  }
  t = a ? a : b;
  if (tail) tail->cdr = t;
  else head = t;
  return head;
}

static struct cons *msort(l, n)
struct cons *l;
long n;
{
  struct cons *mid, *p;
  long i;
  if (n < 2) return l;
  for (p = l, i = 1; i < n / 2; i++) p = p->cdr;
  mid = p->cdr;
  p->cdr = 0;
  return merge(msort(l, n / 2), msort(mid, n - n / 2));
}

static unsigned long sum(l, weight)
register struct cons *l;
int weight;
{
  unsigned long s = 0;
  for (; l; l = l->cdr) s = s * (unsigned long)weight + (unsigned long)l->car;
  return s;
}

int main(argc, argv)
int argc;
char **argv;
{
  long n = argc > 1 ? strtol(argv[1], (char **)0, 10) : 2000, i, bad = 0;
  struct cons *l = 0, *p;
  if (n < 2) n = 2;
  for (i = 0; i < n; i++) l = cons(rnd(100000), l);
  printf("len=%ld sum=%lu\n", length(l), sum(l, 31));
  l = msort(l, length(l));
  for (p = l; p->cdr; p = p->cdr)
    if (p->car > p->cdr->car) bad++;
  printf("sorted len=%ld bad=%ld min=%d sum=%lu\n", length(l), bad, l->car,
         sum(l, 7));
  while (l) {
    p = l->cdr;
    free(l);
    l = p;
  }
  return 0;
}
