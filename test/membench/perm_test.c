/*
 * perm_test.c - the random cyclic orders behind `chase` (perm.c): every
 * order is a permutation, the linked buffer is one cycle through every line
 * once, the TLB-locality knob keeps each group of pages contiguous in the
 * order, and the PRNG is deterministic per seed and unbiased in range.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "membench.h"

static void assert_permutation(const uint32_t *order, size_t n) {
  unsigned char *seen = calloc(n, 1);
  for (size_t i = 0; i < n; i++) {
    assert_true(order[i] < n);
    assert_int_equal(seen[order[i]], 0);
    seen[order[i]] = 1;
  }
  free(seen);
}

/** Link the order into a buffer and walk it: n steps visit every line once
 *  and come back to the start. */
static void assert_one_cycle(const uint32_t *order, size_t n) {
  char *buf = aligned_alloc(MB_LINE, n * MB_LINE);
  unsigned char *seen = calloc(n, 1);
  assert_non_null(buf);
  mb_link_cycle(buf, MB_LINE, order, n);
  char *start = buf + (size_t)order[0] * MB_LINE, *p = start;
  for (size_t i = 0; i < n; i++) {
    size_t line = (size_t)(p - buf) / MB_LINE;
    assert_true(line < n);
    assert_int_equal((size_t)(p - buf) % MB_LINE, 0);
    assert_int_equal(seen[line], 0);
    seen[line] = 1;
    p = *(char **)p;
  }
  assert_ptr_equal(p, start);
  free(seen);
  free(buf);
}

static void test_uniform_order_is_one_cycle(void **state) {
  (void)state;
  static const size_t sizes[] = {2, 3, 64, 1000, 4096 + 17};
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
    size_t n = sizes[k];
    uint32_t *order = malloc(n * sizeof *order);
    mb_rng_t r;
    mb_rng_seed(&r, 42 + k);
    mb_line_order(&r, order, n, MB_PAGE / MB_LINE, 0);
    assert_permutation(order, n);
    assert_one_cycle(order, n);
    free(order);
  }
}

static void test_uniform_order_is_shuffled(void **state) {
  (void)state;
  size_t n = 4096, ascending = 0;
  uint32_t *order = malloc(n * sizeof *order);
  mb_rng_t r;
  mb_rng_seed(&r, 1);
  mb_line_order(&r, order, n, MB_PAGE / MB_LINE, 0);
  for (size_t i = 0; i + 1 < n; i++) ascending += order[i + 1] == order[i] + 1;
  /* A random permutation has about one ascending neighbour pair; a
   * sequential order would have n - 1. */
  assert_true(ascending < 16);
  free(order);
}

/* group_pages G: the order is a sequence of runs, one per group of G
 * consecutive pages, each run holding exactly that group's lines. */
static void check_groups(size_t n, size_t group_pages, uint64_t seed) {
  const size_t lpp = MB_PAGE / MB_LINE, gl = lpp * group_pages;
  size_t ngroups = (n + gl - 1) / gl;
  uint32_t *order = malloc(n * sizeof *order);
  unsigned char *done = calloc(ngroups, 1);
  mb_rng_t r;
  mb_rng_seed(&r, seed);
  mb_line_order(&r, order, n, lpp, group_pages);
  assert_permutation(order, n);
  assert_one_cycle(order, n);
  size_t i = 0, runs = 0, in_order_groups = 0;
  while (i < n) {
    size_t g = order[i] / gl, len = 0, inversions = 0;
    assert_int_equal(done[g], 0); /* each group forms one contiguous run */
    done[g] = 1;
    size_t expect = (g + 1) * gl <= n ? gl : n - g * gl;
    for (; i < n && order[i] / gl == g; i++, len++)
      if (len && order[i] < order[i - 1]) inversions++;
    assert_int_equal(len, expect);
    if (len > 8) assert_true(inversions > 0); /* lines shuffled inside */
    if (g == runs) in_order_groups++;
    runs++;
  }
  assert_int_equal(runs, ngroups);
  if (ngroups >= 8) assert_true(in_order_groups < ngroups); /* groups shuffled */
  free(done);
  free(order);
}

static void test_locality_knob_groups_pages(void **state) {
  (void)state;
  check_groups(64 * 4 * 10, 4, 7);        /* whole groups */
  check_groups(64 * 4 * 10 + 37, 4, 8);   /* a partial last group */
  check_groups(64 * 16, 1, 9);            /* one page per group */
  check_groups(64 * 3, 8, 10);            /* one group larger than the buffer */
}

static void test_seed_determinism(void **state) {
  (void)state;
  size_t n = 1000;
  uint32_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
  mb_rng_t r;
  mb_rng_seed(&r, 5);
  mb_line_order(&r, a, n, 64, 2);
  mb_rng_seed(&r, 5);
  mb_line_order(&r, b, n, 64, 2);
  mb_rng_seed(&r, 6);
  mb_line_order(&r, c, n, 64, 2);
  assert_memory_equal(a, b, n * sizeof *a);
  assert_true(memcmp(a, c, n * sizeof *a) != 0);
  free(a);
  free(b);
  free(c);
}

static void test_rng_below_in_range(void **state) {
  (void)state;
  mb_rng_t r;
  mb_rng_seed(&r, 3);
  size_t hist[3] = {0, 0, 0};
  for (int i = 0; i < 30000; i++) {
    uint64_t v = mb_rng_below(&r, 3);
    assert_true(v < 3);
    hist[v]++;
  }
  for (int k = 0; k < 3; k++) assert_true(hist[k] > 9000 && hist[k] < 11000);
  assert_int_equal(mb_rng_below(&r, 1), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_uniform_order_is_one_cycle),
      cmocka_unit_test(test_uniform_order_is_shuffled),
      cmocka_unit_test(test_locality_knob_groups_pages),
      cmocka_unit_test(test_seed_determinism),
      cmocka_unit_test(test_rng_below_in_range),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
