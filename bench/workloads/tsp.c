/* tsp.c - nearest-neighbour tour over doubly linked circular lists of
 * points.
 *
 * n random points in the unit square are bucketed into a grid of cells of
 * about 16 points; each cell holds its points on a doubly linked circular
 * list (the cell array is a root array of list heads).  The tour visits the
 * cells in serpentine order; inside a cell it enters at the point nearest
 * to the tour's current end and then repeatedly moves to the nearest
 * unvisited point of the cell (a walk over the cell's ring), unlinking it
 * from the ring in O(1) and appending it to the tour, itself a doubly
 * linked circular list.  Then the tour is walked `passes` times in both
 * directions, summing squared edge lengths; the walks visit the points in
 * an order unrelated to their allocation order.
 * Self-check: every point is on the tour once, next/prev agree, both
 * directions and the build agree on the sum, and the length is within
 * the bounds expected for random uniform points (0.7..1.5 * sqrt(n)).
 *
 * Node: 32 bytes native (malloc chunk 48), 24 bytes compact.
 * Usage: tsp [n] [passes]   defaults: 50000 10 (quick); full: 2000000 2
 * Output: "ok tsp n=... length=..." or "FAIL ..." with exit 1. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT point {
  double x, y;
  struct point *next, *prev;
};

static unsigned long long rs = 0x9E3779B97F4A7C15ULL;
static double urand(void) { /* [0, 1), 53 bits, splitmix64 */
  unsigned long long z = (rs += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

static double dist2(const struct point *a, const struct point *b) {
  double dx = a->x - b->x, dy = a->y - b->y;
  return dx * dx + dy * dy;
}

/* Ring operations: *head is a native slot (a cell of the root array). */
static void ring_push(struct point **head, struct point *p) {
  struct point *h = *head;
  if (!h) {
    p->next = p->prev = p;
    *head = p;
    return;
  }
  p->next = h;
  p->prev = h->prev;
  h->prev->next = p;
  h->prev = p;
}

static void ring_remove(struct point **head, struct point *p) {
  if (p->next == p) {
    *head = NULL;
    return;
  }
  p->prev->next = p->next;
  p->next->prev = p->prev;
  if (*head == p) *head = p->next;
}

static double sqrt_pos(double v) { /* Newton; avoids libm */
  double r = v > 1 ? v : 1;
  int i;
  if (v <= 0) return 0;
  for (i = 0; i < 60; i++) {
    double nr = 0.5 * (r + v / r);
    if (nr >= r) break;
    r = nr;
  }
  return r;
}

/* Removes and returns the point of ring *head nearest to `from`. */
static struct point *take_nearest(struct point **head, const struct point *from,
                                  double *d2) {
  struct point *h = *head, *q = h, *best = h;
  double bd = dist2(from, h);
  while ((q = q->next) != h) {
    double d = dist2(from, q);
    if (d < bd) {
      bd = d;
      best = q;
    }
  }
  ring_remove(head, best);
  *d2 = bd;
  return best;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 50000;
  int passes = argc > 2 ? atoi(argv[2]) : 10, pass;
  long g, i, visited = 0, row, col;
  struct point **cell, *first = NULL, *tour, *cur, *p;
  double len = 0, sq = 0, d2;
  if (n < 2 || passes < 1) {
    fprintf(stderr, "usage: tsp [n >= 2] [passes]\n");
    return 2;
  }
  for (g = 1; g * g * 16 < n; g++)
    ;
  cell = calloc((size_t)(g * g), sizeof(struct point *));
  if (!cell) return 2;
  for (i = 0; i < n; i++) {
    p = malloc(sizeof(struct point));
    if (!p) {
      fprintf(stderr, "out of memory\n");
      return 2;
    }
    p->x = urand();
    p->y = urand();
    ring_push(&cell[(long)(p->y * (double)g) * g + (long)(p->x * (double)g)], p);
    if (!first) first = p;
  }

  /* the tour starts at the first point allocated */
  ring_remove(&cell[(long)(first->y * (double)g) * g + (long)(first->x * (double)g)],
              first);
  first->next = first->prev = first;
  tour = cur = first;
  visited = 1;
  for (row = 0; row < g; row++)
    for (col = 0; col < g; col++) {
      struct point **head = &cell[row * g + (row & 1 ? g - 1 - col : col)];
      while (*head) {
        struct point *best = take_nearest(head, cur, &d2);
        best->prev = cur; /* append after cur, the tour's end */
        best->next = tour;
        cur->next = best;
        tour->prev = best;
        cur = best;
        len += sqrt_pos(d2);
        sq += d2;
        visited++;
      }
    }
  len += sqrt_pos(dist2(cur, tour));
  sq += dist2(cur, tour);
  free(cell);
  if (visited != n) {
    printf("FAIL tsp visited=%ld of %ld\n", visited, n);
    return 1;
  }

  /* passes over the tour, both directions */
  for (pass = 0; pass < passes; pass++) {
    double f = 0, b = 0; /* sums of squared edge lengths */
    long cnt = 0;
    p = tour;
    do {
      if (p->next->prev != p) {
        printf("FAIL tsp broken link\n");
        return 1;
      }
      f += dist2(p, p->next);
      cnt++;
      p = p->next;
    } while (p != tour);
    p = tour;
    do {
      b += dist2(p, p->prev);
      p = p->prev;
    } while (p != tour);
    if (cnt != n || f - b > 1e-6 * f || b - f > 1e-6 * f ||
        f - sq > 1e-6 * f || sq - f > 1e-6 * f) {
      printf("FAIL tsp pass=%d count=%ld fwd=%.9f back=%.9f built=%.9f\n",
             pass, cnt, f, b, sq);
      return 1;
    }
  }
  if (n >= 1000 && (len < 0.7 * sqrt_pos((double)n) ||
                    len > 1.5 * sqrt_pos((double)n))) {
    printf("FAIL tsp length=%.6f out of range for n=%ld\n", len, n);
    return 1;
  }
  /* free the tour */
  p = tour->next;
  while (p != tour) {
    struct point *nx = p->next;
    free(p);
    p = nx;
  }
  free(tour);
  printf("ok tsp n=%ld passes=%d length=%.6f\n", n, passes, len);
  return 0;
}
