/* safepoint_main.c - safepoints in main's own loops: explicit
 * cp_safepoint() in the inner loop of nested loops, compact-pointer locals
 * of main and a root array live across the polls, a global root updated in
 * the loop, and loops with no explicit poll (where the plugin's automatic
 * back-edge polls are the only safepoints).  Natively a no-op.
 * Usage: safepoint_main [n]   (default 20000) */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  int key;
  struct node *next;
  struct node *skip;
};

struct node *g_last; /* global root, moved along in the loops */

static unsigned s = 1u;
static unsigned rnd(void) {
  s ^= s << 13;
  s ^= s >> 17;
  s ^= s << 5;
  return s;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : 20000;
  long nb = 64, i, j, total = 0, skips = 0;
  struct node **buckets = calloc((size_t)nb, sizeof(struct node *));
  struct node *p, *prev_alloc = NULL;
  unsigned long h = 0;
  if (!buckets) return 2;
  if (n < nb) n = nb;

  /* nested loops, explicit poll in the inner loop */
  for (i = 0; i < nb; i++) {
    for (j = 0; j < n / nb; j++) {
      struct node *q = malloc(sizeof(struct node));
      if (!q) return 2;
      q->key = (int)(rnd() % 10000u);
      q->next = buckets[i];
      q->skip = prev_alloc; /* across buckets */
      buckets[i] = q;
      prev_alloc = q;
      g_last = q;
      cp_safepoint();
      total += q->key + (q->skip ? q->skip->key : 0);
    }
    cp_safepoint();
  }
  printf("built total=%ld last.key=%d\n", total, g_last->key);

  /* loops without explicit polls: only automatic back-edge polls */
  for (i = 0; i < nb; i++)
    for (p = buckets[i]; p; p = p->next) {
      h = h * 31 + (unsigned long)p->key;
      if (p->skip && p->skip->key > p->key) skips++;
    }
  printf("walk hash=%lu skips=%ld\n", h, skips);

  /* relink: drop skip links, reverse each bucket with a poll per node */
  for (i = 0; i < nb; i++) {
    struct node *rev = NULL;
    p = buckets[i];
    while (p) {
      struct node *nx = p->next;
      p->skip = NULL;
      p->next = rev;
      rev = p;
      p = nx;
      cp_safepoint();
    }
    buckets[i] = rev;
  }
  h = 0;
  for (i = 0; i < nb; i++)
    for (p = buckets[i]; p; p = p->next) h = h * 31 + (unsigned long)p->key;
  printf("reversed hash=%lu g_last.skip_null=%d\n", h, g_last->skip == NULL);

  g_last = NULL;
  for (i = 0; i < nb; i++)
    while (buckets[i]) {
      p = buckets[i]->next;
      free(buckets[i]);
      buckets[i] = p;
    }
  free(buckets);
  return 0;
}
