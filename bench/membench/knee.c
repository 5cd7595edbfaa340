/*
 * knee.c - knee detection on latency curves.
 *
 * Input: a curve y(x) sampled at increasing x (quarter-octave working-set
 * sizes, or page counts), such as the chase latency or the TLB-reach
 * curve.  Output: the knees, each the last point of a plateau before y
 * rises by more than a relative threshold to a new level, with the plateau
 * levels either side.  Invariants: knees are in increasing x, each
 * transition yields one knee, a rise must persist for two consecutive
 * points (one noisy sample is not a knee), and a slow drift is measured
 * against the median of the current plateau, so it is reported once it
 * has accumulated to the threshold.
 *
 * Tests: test/membench/knee_test.c (synthetic step curves with known
 * knees, with and without noise, ramps, and flat curves).
 */
#include "membench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/** Median of y[lo..hi] inclusive. */
static double median_of(const double *y, size_t lo, size_t hi) {
  size_t n = hi - lo + 1;
  double tmp[64];
  double *t = n <= 64 ? tmp : malloc(n * sizeof *t);
  if (!t) abort();
  memcpy(t, y + lo, n * sizeof *t);
  qsort(t, n, sizeof *t, cmp_double);
  double m = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
  if (t != tmp) free(t);
  return m;
}

/** y[lo..hi] all within (1 +- tol) of their median? */
static int flat(const double *y, size_t lo, size_t hi, double tol, double *level) {
  double m = median_of(y, lo, hi);
  for (size_t i = lo; i <= hi; i++)
    if (y[i] > m * (1 + tol) || y[i] < m * (1 - tol)) return 0;
  *level = m;
  return 1;
}

typedef struct plateau { size_t lo, hi; double level; } plateau_t;

size_t mb_find_knees(const double *x, const double *y, size_t n, double rise,
                     mb_knee_t *out, size_t cap) {
  if (n < 3 || rise <= 0 || cap == 0) return 0;
  const double tol = rise * 0.6;
  plateau_t *p = malloc(n * sizeof *p);
  if (!p) abort();
  size_t np = 0;
  /* 1. Plateaus: maximal runs of at least three points within +-tol of
   *    their median, found greedily from the left. */
  for (size_t s = 0; s + 2 < n;) {
    double level;
    if (!flat(y, s, s + 2, tol, &level)) {
      s++;
      continue;
    }
    size_t e = s + 2;
    while (e + 1 < n && flat(y, s, e + 1, tol, &level)) e++;
    flat(y, s, e, tol, &level);
    p[np++] = (plateau_t){s, e, level};
    s = e + 1;
  }
  /* 2. Neighbouring plateaus less than `rise` apart are one level that
   *    drifted or was split by noise. */
  size_t m = 0;
  for (size_t i = 0; i < np; i++) {
    if (m && p[i].level <= p[m - 1].level * (1 + rise) &&
        p[i].level >= p[m - 1].level / (1 + rise)) {
      p[m - 1].hi = p[i].hi;
      p[m - 1].level = median_of(y, p[m - 1].lo, p[m - 1].hi);
    } else {
      p[m++] = p[i];
    }
  }
  /* 3. A knee is the last point of a plateau followed by a higher one. */
  size_t nk = 0;
  for (size_t i = 0; i + 1 < m && nk < cap; i++) {
    if (p[i + 1].level <= p[i].level * (1 + rise)) continue;
    out[nk].index = p[i].hi;
    out[nk].x = x[p[i].hi];
    out[nk].before = p[i].level;
    out[nk].after = p[i + 1].level;
    nk++;
  }
  free(p);
  return nk;
}

const char *mb_knee_verdict(double measured, double reported) {
  if (!(measured > 0) || !(reported > 0)) return "n/a";
  double r = measured / reported;
  return (r >= 0.5 && r <= 2.0) ? "agree" : "DISAGREE";
}
