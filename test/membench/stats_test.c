/*
 * stats_test.c - the summary of repeated measurements (timing.c): min,
 * median (mean of the middle two for even counts), nearest-rank p99, max
 * and mean; and the TSC clock: calibration gives a plausible frequency and
 * serialised reads are monotonic on one CPU.  No timing is asserted beyond
 * "positive and ordered".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "membench.h"

static void test_stats(void **state) {
  (void)state;
  double one[] = {5};
  mb_stats_t s = mb_stats(one, 1);
  assert_true(s.min == 5 && s.median == 5 && s.p99 == 5 && s.max == 5);
  double two[] = {4, 2};
  s = mb_stats(two, 2);
  assert_true(s.min == 2 && s.median == 3 && s.max == 4 && s.mean == 3);
  double seven[] = {7, 1, 6, 2, 5, 3, 4};
  s = mb_stats(seven, 7);
  assert_true(s.median == 4 && s.p99 == 7);
  double hundred[100];
  for (int i = 0; i < 100; i++) hundred[i] = 100 - i; /* 1..100 reversed */
  s = mb_stats(hundred, 100);
  assert_true(s.p99 == 99 && s.min == 1 && s.max == 100 && s.median == 50.5);
  double thousand[1000];
  for (int i = 0; i < 1000; i++) thousand[i] = i + 1;
  s = mb_stats(thousand, 1000);
  assert_true(s.p99 == 990);
  s = mb_stats(NULL, 0);
  assert_int_equal(s.n, 0);
}

static void test_clock(void **state) {
  (void)state;
  mb_clock_t c;
  assert_int_equal(mb_clock_init(&c, 2, 5), 0);
  assert_true(c.tsc_hz > 1e8 && c.tsc_hz < 1e11);
  assert_int_equal(mb_have_rdtscp, c.rdtscp);
  uint64_t a = mb_tsc_begin(), b = mb_tsc_end();
  assert_true(b >= a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stats),
      cmocka_unit_test(test_clock),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
