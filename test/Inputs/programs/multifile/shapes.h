/* shapes.h - shared by main.c and shapes.c: the compact types, a static
 * inline function that touches them (rewritten identically in each
 * translation unit), an extern global root defined in shapes.c, and a
 * CP_SAFEPOINT prototype of a function in the other translation unit. */
#ifndef SHAPES_H
#define SHAPES_H

#include <compactptr.h>

struct CP_COMPACT seg {
  int x0, y0, x1, y1;
  struct seg *next;
  struct poly *owner;
};

struct CP_COMPACT poly {
  int id;
  int nsegs;
  struct seg *first;
  struct poly *next;
};

/* all polygons, newest first; defined in shapes.c */
extern struct poly *g_polys;

static inline long seg_len1(const struct seg *s) {
  long dx = s->x1 - s->x0, dy = s->y1 - s->y0;
  return (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy);
}

static inline long poly_perimeter(const struct poly *p) {
  long sum = 0;
  const struct seg *s;
  for (s = p->first; s; s = s->next) sum += seg_len1(s);
  return sum;
}

struct poly *poly_new(int id, int corners, unsigned *seed);
void poly_free(struct poly *p);
/* Reverses every polygon's segment list; polls cp_safepoint() between
 * polygons. */
CP_SAFEPOINT void polys_reverse_all(void);
long polys_check(void); /* owner links agree; returns #polygons or -1 */

#endif
