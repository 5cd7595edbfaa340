/* shapes.c - allocation, freeing and whole-collection passes. */
#include "shapes.h"

#include <stdlib.h>

struct poly *g_polys;

static int coord(unsigned *seed) {
  *seed = *seed * 1103515245u + 12345u;
  return (int)((*seed >> 16) % 1000u);
}

struct poly *poly_new(int id, int corners, unsigned *seed) {
  struct poly *p = malloc(sizeof(struct poly));
  struct seg *tail = NULL;
  int i, x0, y0, x, y;
  if (!p) exit(2);
  p->id = id;
  p->nsegs = corners;
  p->first = NULL;
  x0 = x = coord(seed);
  y0 = y = coord(seed);
  for (i = 0; i < corners; i++) {
    struct seg *s = malloc(sizeof *s);
    if (!s) exit(2);
    s->x0 = x;
    s->y0 = y;
    if (i + 1 == corners) {
      x = x0;
      y = y0;
    } else {
      x = coord(seed);
      y = coord(seed);
    }
    s->x1 = x;
    s->y1 = y;
    s->owner = p;
    s->next = NULL;
    if (tail) tail->next = s;
    else p->first = s;
    tail = s;
  }
  p->next = g_polys;
  g_polys = p;
  return p;
}

void poly_free(struct poly *p) {
  struct seg *s = p->first;
  while (s) {
    struct seg *nx = s->next;
    free(s);
    s = nx;
  }
  free(p);
}

void polys_reverse_all(void) {
  struct poly *p;
  for (p = g_polys; p; p = p->next) {
    struct seg *prev = NULL, *s = p->first;
    while (s) {
      struct seg *nx = s->next;
      int t;
      t = s->x0; s->x0 = s->x1; s->x1 = t;
      t = s->y0; s->y0 = s->y1; s->y1 = t;
      s->next = prev;
      prev = s;
      s = nx;
    }
    p->first = prev;
    cp_safepoint();
  }
}

long polys_check(void) {
  long n = 0;
  const struct poly *p;
  for (p = g_polys; p; p = p->next) {
    const struct seg *s;
    int k = 0;
    for (s = p->first; s; s = s->next, k++) {
      if (s->owner != p) return -1;
      if (s->next && (s->x1 != s->next->x0 || s->y1 != s->next->y0)) return -1;
    }
    if (k != p->nsegs) return -1;
    n++;
  }
  return n;
}
