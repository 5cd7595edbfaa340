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

/* The VmFlags line of the mapping that holds `addr` in /proc/self/smaps
 * (madvise advice splits a mapping, so each chunk's advice shows). */
static int vm_flags_at(const void *addr, char *flags, size_t size) {
  FILE *f = fopen("/proc/self/smaps", "r");
  if (!f)
    return -1;
  char line[512];
  int inside = 0, found = -1;
  while (fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
      inside = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
    else if (inside && !strncmp(line, "VmFlags:", 8)) {
      snprintf(flags, size, "%s", line + 8);
      found = 0;
      break;
    }
  }
  fclose(f);
  return found;
}

static int has_flag(const char *flags, const char *flag) {
  char padded[512];
  snprintf(padded, sizeof padded, " %s", flags);
  for (char *p = padded; (p = strstr(p, flag)); p++)
    if (p[-1] == ' ' && (p[2] == ' ' || p[2] == '\n' || p[2] == 0))
      return 1;
  return 0;
}

/* A small heap must not pay for a 2 MiB page: the first chunk an arena
 * commits is advised MADV_NOHUGEPAGE ("nh"), later ones MADV_HUGEPAGE
 * ("hg"). */
static void test_first_chunk_small_pages(void **state) {
  (void)state;
  if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) != 0)
    skip(); /* no THP in this kernel: no advice to check */
  cp_arena_t b;
  const size_t chunk = (size_t)1 << CP_COMMIT_SHIFT;
  assert_true(cp__arena_init(&b, 4 * chunk, 4 * chunk, 1, false));
  char flags[512];
  uint32_t p = cp__buddy_alloc(&b, 0);
  assert_int_not_equal(p, CP_NONE);
  assert_int_equal(vm_flags_at(cp__arena_addr(&b, p), flags, sizeof flags), 0);
  assert_true(has_flag(flags, "nh"));
  assert_false(has_flag(flags, "hg"));
  /* A 2 MiB run cannot fit in the first chunk (page 0 is reserved): it
   * commits the second. */
  uint32_t k = CP_COMMIT_SHIFT - CP_PAGE_SHIFT;
  uint32_t q = cp__buddy_alloc(&b, k);
  assert_int_not_equal(q, CP_NONE);
  assert_true(q >= (1u << k));
  assert_int_equal(vm_flags_at(cp__arena_addr(&b, q), flags, sizeof flags), 0);
  assert_true(has_flag(flags, "hg"));
  assert_false(has_flag(flags, "nh"));
  /* The first chunk is clipped at page 1 (page 0 is never accessible). */
  assert_int_equal(b.committed_bytes, 2 * chunk - CP_PAGE_SIZE);
  cp__arena_destroy(&b);
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
      cmocka_unit_test(test_first_chunk_small_pages),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
