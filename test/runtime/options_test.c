/* options_test.c - size parsing for COMPACTPTR_* knobs. */
#include "internal.h"
#include "testutil.h"

static void test_sizes(void **state) {
  (void)state;
  uint64_t v;
  assert_int_equal(cp__parse_size("65536", &v), 0);
  assert_int_equal(v, 65536);
  assert_int_equal(cp__parse_size("64K", &v), 0);
  assert_int_equal(v, 65536);
  assert_int_equal(cp__parse_size("16m", &v), 0);
  assert_int_equal(v, 16u << 20);
  assert_int_equal(cp__parse_size("2G", &v), 0);
  assert_int_equal(v, 2ull << 30);
  assert_int_equal(cp__parse_size("1T", &v), 0);
  assert_int_equal(v, 1ull << 40);
  assert_int_equal(cp__parse_size("8MiB", &v), 0);
  assert_int_equal(v, 8u << 20);
  assert_int_equal(cp__parse_size("8MB", &v), 0);
  const char *bad[] = {"", "-1", "+4", " 4", "4 K", "4Q", "K", "4KK",
                       "99999999999999999999", "17179869184T", "1.5G", "0x10"};
  for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++)
    if (cp__parse_size(bad[i], &v) == 0)
      fail_msg("'%s' parsed as %llu", bad[i], (unsigned long long)v);
}

static void test_defaults(void **state) {
  (void)state;
  /* CTest runs this without COMPACTPTR_* variables. */
  assert_int_equal(cp__option(CP_OPT_ARENA_LIMIT), CP_ARENA_REACH);
  assert_int_equal(cp__option(CP_OPT_HIGH_WATER), 87);
  assert_int_equal(cp__option(CP_OPT_VERIFY), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sizes),
      cmocka_unit_test(test_defaults),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
