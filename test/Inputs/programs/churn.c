/* churn.c - free-heavy allocation churn over three compact types of
 * different sizes: a table of live objects (a root array), random frees
 * and reallocations, a cookie in every object checked before each free,
 * objects linked to each other so frees must unlink first, and bursts that
 * free everything and start again (slabs emptied and reused).
 * Usage: churn [steps]   (default 20000) */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

#define COOKIE 0x5ca1ab1eu

struct CP_COMPACT small {
  unsigned cookie;
  struct small *next;
};

struct CP_COMPACT medium {
  unsigned cookie;
  struct small *s;
  struct medium *peer;
  long data[3];
};

struct CP_COMPACT big {
  unsigned cookie;
  int n;
  struct medium *m[8];
  struct big *self;
  char pad[40];
};

#define SLOTS 512

static unsigned long long x = 1;
static unsigned rnd(unsigned b) {
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  return (unsigned)((x * 2685821657736338717ULL) >> 33) % b;
}

static long bad_cookies;

static void check(unsigned cookie) {
  if (cookie != COOKIE) bad_cookies++;
}

int main(int argc, char **argv) {
  long steps = argc > 1 ? strtol(argv[1], NULL, 10) : 20000;
  struct small **ss = calloc(SLOTS, sizeof(struct small *));
  struct medium **ms = calloc(SLOTS, sizeof(struct medium *));
  struct big **bs = calloc(SLOTS, sizeof(struct big *));
  long i, allocs = 0, frees = 0, bursts = 0;
  unsigned long sum = 0;
  int k;
  if (!ss || !ms || !bs) return 2;
  x = 0x853c49e6748fea9bULL;

  for (i = 0; i < steps; i++) {
    unsigned op = rnd(10), j = rnd(SLOTS);
    if (op < 4) { /* small: replace slot j, chain to another small */
      struct small *s;
      if (ss[j]) {
        /* no medium may point at it: clear references first */
        for (k = 0; k < SLOTS; k++)
          if (ms[k] && ms[k]->s == ss[j]) ms[k]->s = NULL;
        for (k = 0; k < SLOTS; k++)
          if (ss[k] && ss[k]->next == ss[j]) ss[k]->next = NULL;
        check(ss[j]->cookie);
        free(ss[j]);
        ss[j] = NULL; /* never leave a freed pointer in a root array */
        frees++;
      }
      s = malloc(sizeof(struct small));
      if (!s) return 2;
      s->cookie = COOKIE;
      s->next = ss[rnd(SLOTS)];
      ss[j] = s;
      allocs++;
    } else if (op < 7) { /* medium */
      struct medium *m;
      if (ms[j]) {
        for (k = 0; k < SLOTS; k++) {
          if (ms[k] && ms[k]->peer == ms[j]) ms[k]->peer = NULL;
          if (bs[k]) {
            int q;
            for (q = 0; q < bs[k]->n; q++)
              if (bs[k]->m[q] == ms[j]) bs[k]->m[q] = NULL;
          }
        }
        check(ms[j]->cookie);
        free(ms[j]);
        ms[j] = NULL;
        frees++;
      }
      m = malloc(sizeof *m);
      if (!m) return 2;
      m->cookie = COOKIE;
      m->s = ss[rnd(SLOTS)];
      m->peer = ms[rnd(SLOTS)];
      m->data[0] = (long)i;
      m->data[1] = (long)j;
      m->data[2] = m->s ? 1 : 0;
      ms[j] = m;
      allocs++;
    } else if (op < 9) { /* big */
      struct big *b;
      int q;
      if (bs[j]) {
        check(bs[j]->cookie);
        free(bs[j]);
        bs[j] = NULL;
        frees++;
      }
      b = malloc(sizeof(struct big));
      if (!b) return 2;
      b->cookie = COOKIE;
      b->self = b;
      b->n = (int)rnd(9);
      for (q = 0; q < 8; q++) b->m[q] = q < b->n ? ms[rnd(SLOTS)] : NULL;
      for (q = 0; q < 40; q++) b->pad[q] = (char)(q ^ (int)j);
      bs[j] = b;
      allocs++;
    } else if (rnd(50) == 0) { /* burst: free everything */
      for (k = 0; k < SLOTS; k++) {
        if (ss[k]) { check(ss[k]->cookie); free(ss[k]); ss[k] = NULL; frees++; }
        if (ms[k]) { check(ms[k]->cookie); free(ms[k]); ms[k] = NULL; frees++; }
        if (bs[k]) { check(bs[k]->cookie); free(bs[k]); bs[k] = NULL; frees++; }
      }
      bursts++;
    }
  }

  /* checksum the final graph by slot indices, never by address */
  for (k = 0; k < SLOTS; k++) {
    int q;
    if (ss[k]) sum += 1 + (ss[k]->next != NULL);
    if (ms[k]) sum = sum * 3 + (unsigned long)ms[k]->data[0] % 1000 +
                     (ms[k]->peer != NULL) + (ms[k]->s != NULL);
    if (bs[k]) {
      sum = sum * 5 + (unsigned long)bs[k]->n + (bs[k]->self == bs[k]);
      for (q = 0; q < bs[k]->n; q++)
        sum += bs[k]->m[q] ? (unsigned long)bs[k]->m[q]->data[1] : 7;
      for (q = 0; q < 40; q++) sum += (unsigned char)bs[k]->pad[q];
    }
  }
  printf("allocs=%ld frees=%ld bursts=%ld bad_cookies=%ld sum=%lu\n", allocs,
         frees, bursts, bad_cookies, sum);
  for (k = 0; k < SLOTS; k++) {
    free(ss[k]);
    free(ms[k]);
    free(bs[k]);
  }
  free(ss);
  free(ms);
  free(bs);
  return 0;
}
