/*
 * knee_test.c - the knee detector (knee.c) on synthetic curves with known
 * steps: exact knees on clean steps, the same knees under +-3% noise and
 * with ramps between plateaus, none on flat or spiky curves; and the
 * agree/DISAGREE verdict.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "membench.h"

#define MAXN 256

/* Quarter-octave grid from 4K to 256M and a cache-like step curve: L1d
 * 32K, L2 512K, LLC 16M. */
static size_t grid(double *x) {
  uint64_t v[MAXN];
  size_t n = mb_size_steps(4096, 256u << 20, 4, 64, v, MAXN);
  for (size_t i = 0; i < n; i++) x[i] = (double)v[i];
  return n;
}

static double level(double bytes) {
  if (bytes <= 32 * 1024) return 1.3;
  if (bytes <= 512 * 1024) return 4.0;
  if (bytes <= 16 * 1024 * 1024) return 15.0;
  return 150.0;
}

static void expect_cache_knees(const double *x, const double *y, size_t n) {
  mb_knee_t k[8];
  size_t nk = mb_find_knees(x, y, n, 0.25, k, 8);
  assert_int_equal(nk, 3);
  assert_true(k[0].x == 32 * 1024);
  assert_true(k[1].x == 512 * 1024);
  assert_true(k[2].x == 16 * 1024 * 1024);
  assert_true(k[0].before < k[0].after);
  assert_true(fabs(k[2].after - 150) < 15);
}

static void test_clean_steps(void **state) {
  (void)state;
  double x[MAXN], y[MAXN];
  size_t n = grid(x);
  for (size_t i = 0; i < n; i++) y[i] = level(x[i]);
  expect_cache_knees(x, y, n);
}

static void test_noisy_steps(void **state) {
  (void)state;
  double x[MAXN], y[MAXN];
  size_t n = grid(x);
  mb_rng_t r;
  for (uint64_t seed = 1; seed <= 20; seed++) {
    mb_rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++) {
      double u = (double)(mb_rng_next(&r) >> 11) / 9007199254740992.0; /* [0,1) */
      y[i] = level(x[i]) * (1 + 0.06 * (u - 0.5));
    }
    expect_cache_knees(x, y, n);
  }
}

static void test_ramps_between_plateaus(void **state) {
  (void)state;
  double x[MAXN], y[MAXN];
  size_t n = grid(x);
  /* Each transition takes two intermediate points, geometrically a third
   * and two thirds of the way to the next level. */
  for (size_t i = 0; i < n; i++) y[i] = level(x[i]);
  for (size_t t = 1; t + 1 < n; t++)
    if (level(x[t]) > level(x[t - 1])) {
      double lo = level(x[t - 1]), hi = level(x[t]);
      y[t] = lo * pow(hi / lo, 1.0 / 3);
      y[t + 1] = lo * pow(hi / lo, 2.0 / 3);
    }
  mb_knee_t k[8];
  size_t nk = mb_find_knees(x, y, n, 0.25, k, 8);
  assert_int_equal(nk, 3);
  assert_true(k[0].x == 32 * 1024);
  assert_true(k[1].x == 512 * 1024);
  assert_true(k[2].x == 16 * 1024 * 1024);
}

static void test_flat_and_spiky(void **state) {
  (void)state;
  double x[64], y[64];
  mb_knee_t k[8];
  for (size_t i = 0; i < 64; i++) x[i] = (double)(i + 1), y[i] = 10 + (i % 2) * 0.5;
  assert_int_equal(mb_find_knees(x, y, 64, 0.25, k, 8), 0);
  y[20] = 40; /* one outlier is not a knee */
  y[40] = 40;
  assert_int_equal(mb_find_knees(x, y, 64, 0.25, k, 8), 0);
  /* A decrease is not a knee either. */
  for (size_t i = 0; i < 64; i++) y[i] = i < 32 ? 20 : 10;
  assert_int_equal(mb_find_knees(x, y, 64, 0.25, k, 8), 0);
  /* Too few points. */
  assert_int_equal(mb_find_knees(x, y, 2, 0.25, k, 8), 0);
}

static void test_tlb_like_curve(void **state) {
  (void)state;
  /* Pages 4..16384 at quarter octaves; L1 TLB 64 entries, L2 2048. */
  uint64_t v[MAXN];
  double x[MAXN], y[MAXN];
  size_t n = mb_size_steps(4, 16384, 4, 1, v, MAXN);
  for (size_t i = 0; i < n; i++) {
    x[i] = (double)v[i];
    y[i] = v[i] <= 64 ? 3.4 : v[i] <= 2048 ? 23 : 55;
  }
  mb_knee_t k[8];
  size_t nk = mb_find_knees(x, y, n, 0.25, k, 8);
  assert_int_equal(nk, 2);
  assert_true(k[0].x == 64);
  assert_true(k[1].x == 2048);
}

/* Shapes seen on a busy VM: a long ramp between two levels, a level that
 * drifts upwards by 25% over many points, and a measured TLB-reach curve. */
static void test_ramp_and_drift(void **state) {
  (void)state;
  double x[40], y[40];
  for (size_t i = 0; i < 40; i++) {
    x[i] = (double)(i + 1);
    if (i < 10) y[i] = 4;                                  /* plateau */
    else if (i < 18) y[i] = 4 * pow(4.0, (i - 9) / 9.0);   /* 8-point ramp */
    else y[i] = 16 * (1 + 0.25 * (i - 18) / 21.0);         /* drift */
  }
  mb_knee_t k[8];
  size_t nk = mb_find_knees(x, y, 40, 0.25, k, 8);
  assert_int_equal(nk, 1);
  assert_true(k[0].x == 10);
}

static void test_measured_tlb_curve(void **state) {
  (void)state;
  /* compactptr-membench tlb on the AMD EPYC VM (cycles per load). */
  static const double pages[] = {4, 5, 6, 7, 8, 10, 11, 13, 16, 19, 23, 27, 32, 38, 45,
                                 54, 64, 76, 91, 108, 128, 152, 181, 215, 256, 304, 362,
                                 431, 512, 609, 724, 861, 1024, 1218, 1448, 1722, 2048,
                                 2435, 2896, 3444, 4096, 4871, 5793, 6889, 8192, 9742,
                                 11585, 13777, 16384};
  static const double cyc[] = {3.37, 3.58, 3.40, 3.34, 3.46, 3.37, 3.58, 3.48, 3.40, 3.38,
                               3.38, 3.38, 3.47, 3.53, 3.51, 5.14, 9.18, 13.82, 17.30,
                               20.29, 22.82, 22.96, 22.62, 22.80, 22.93, 22.58, 22.46,
                               22.78, 22.67, 23.05, 22.74, 22.64, 22.99, 23.29, 26.50,
                               29.24, 36.72, 45.71, 49.72, 50.60, 51.35, 51.92, 53.83,
                               54.31, 55.95, 57.25, 57.86, 59.78, 59.90};
  size_t n = sizeof pages / sizeof *pages;
  mb_knee_t k[8];
  size_t nk = mb_find_knees(pages, cyc, n, 0.25, k, 8);
  assert_int_equal(nk, 2);
  assert_string_equal(mb_knee_verdict(k[0].x, 64), "agree");
  assert_string_equal(mb_knee_verdict(k[1].x, 2048), "agree");
}

static void test_verdict(void **state) {
  (void)state;
  assert_string_equal(mb_knee_verdict(32768, 32768), "agree");
  assert_string_equal(mb_knee_verdict(16384, 32768), "agree");
  assert_string_equal(mb_knee_verdict(65536, 32768), "agree");
  assert_string_equal(mb_knee_verdict(2.5e6, 32.0 * 1024 * 1024), "DISAGREE");
  assert_string_equal(mb_knee_verdict(0, 32768), "n/a");
  assert_string_equal(mb_knee_verdict(32768, 0), "n/a");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_clean_steps),
      cmocka_unit_test(test_noisy_steps),
      cmocka_unit_test(test_ramps_between_plateaus),
      cmocka_unit_test(test_flat_and_spiky),
      cmocka_unit_test(test_tlb_like_curve),
      cmocka_unit_test(test_ramp_and_drift),
      cmocka_unit_test(test_measured_tlb_curve),
      cmocka_unit_test(test_verdict),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
