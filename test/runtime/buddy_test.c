/* buddy_test.c - the buddy allocator: split, coalesce, alignment, limits. */
#include "internal.h"
#include "testutil.h"

static cp_arena_t a;

static int setup(void **state) {
  (void)state;
  /* 64 pages managed out of a 1 MiB reservation; page 0 stays reserved. */
  return cp__arena_init(&a, 1 << 20, 64 * CP_PAGE_SIZE, 1, false) ? 0 : -1;
}
static int teardown(void **state) {
  (void)state;
  cp__arena_destroy(&a);
  return 0;
}

static void test_initial_free_runs(void **state) {
  (void)state;
  assert_true(cp__buddy_is_valid(&a));
  assert_int_equal(a.used_pages, 0);
  assert_int_equal(a.max_order, 6);
  /* Pages 1..63 split as 1, 2-3, 4-7, 8-15, 16-31, 32-63. */
  for (uint32_t k = 0; k <= 5; k++)
    assert_int_equal(a.free_head[k], 1u << k);
  assert_int_equal(a.free_head[6], CP_NONE);
}

static void test_split_and_coalesce(void **state) {
  (void)state;
  uint32_t p = cp__buddy_alloc(&a, 0);
  assert_int_equal(p, 1); /* the order-0 run first */
  uint32_t q = cp__buddy_alloc(&a, 0);
  assert_int_equal(q, 2); /* splits 2-3 */
  assert_int_equal(a.free_head[0], 3);
  assert_true(cp__buddy_is_valid(&a));
  cp__buddy_free(&a, q, 0);
  assert_int_equal(a.free_head[1], 2); /* 2 and 3 merged again */
  cp__buddy_free(&a, p, 0);
  assert_true(cp__buddy_is_valid(&a));
  assert_int_equal(a.used_pages, 0);
}

static void test_alignment_and_exhaustion(void **state) {
  (void)state;
  uint32_t got[64];
  int n = 0;
  for (uint32_t k = 5;; ) {
    uint32_t p = cp__buddy_alloc(&a, k);
    if (p == CP_NONE) {
      if (k == 0)
        break;
      k--;
      continue;
    }
    assert_int_equal(p & ((1u << k) - 1), 0);
    assert_true(p >= 1 && p + (1u << k) <= 64);
    /* committed: writable */
    memset(cp__arena_addr(&a, p), 0xab, (size_t)CP_PAGE_SIZE << k);
    got[n++] = p;
  }
  assert_int_equal(a.used_pages, 63);
  assert_true(cp__buddy_is_valid(&a));
  for (int i = 0; i < n; i++)
    cp__buddy_free(&a, got[i], a.order[got[i]]);
  assert_int_equal(a.used_pages, 0);
  assert_true(cp__buddy_is_valid(&a));
  assert_int_equal(cp__buddy_alloc(&a, 6), CP_NONE); /* page 0 is never free */
}

static void test_random_churn(void **state) {
  (void)state;
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  print_message("seed %#llx\n", (unsigned long long)seed);
  uint32_t page[256], order[256];
  int n = 0;
  for (int step = 0; step < 20000; step++) {
    if (n < 256 && (n == 0 || rng_below(&seed, 2))) {
      uint32_t k = rng_below(&seed, 4);
      uint32_t p = cp__buddy_alloc(&a, k);
      if (p != CP_NONE) {
        for (int i = 0; i < n; i++) /* no overlap */
          assert_true(p + (1u << k) <= page[i] || page[i] + (1u << order[i]) <= p);
        page[n] = p;
        order[n++] = k;
      }
    } else {
      int i = (int)rng_below(&seed, (uint32_t)n);
      cp__buddy_free(&a, page[i], order[i]);
      page[i] = page[--n];
      order[i] = order[n];
    }
    if (step % 97 == 0)
      assert_true(cp__buddy_is_valid(&a));
  }
  while (n)
    --n, cp__buddy_free(&a, page[n], order[n]);
  assert_true(cp__buddy_is_valid(&a));
  assert_int_equal(a.used_pages, 0);
}

static void test_order_for_bytes(void **state) {
  (void)state;
  assert_int_equal(cp__order_for_bytes(1), 0);
  assert_int_equal(cp__order_for_bytes(4096), 0);
  assert_int_equal(cp__order_for_bytes(4097), 1);
  assert_int_equal(cp__order_for_bytes(65536), 4);
  assert_int_equal(cp__order_for_bytes(65537), 5);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_initial_free_runs, setup, teardown),
      cmocka_unit_test_setup_teardown(test_split_and_coalesce, setup, teardown),
      cmocka_unit_test_setup_teardown(test_alignment_and_exhaustion, setup, teardown),
      cmocka_unit_test_setup_teardown(test_random_churn, setup, teardown),
      cmocka_unit_test(test_order_for_bytes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
