/*
 * parse_test.c - command-line numbers (parse.c): sizes with binary
 * suffixes, malformed sizes as errors whose message quotes the input,
 * bounded integers, size formatting and the quarter-octave ladder.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "membench.h"

static void test_valid_sizes(void **state) {
  (void)state;
  static const struct { const char *s; uint64_t v; } ok[] = {
      {"4096", 4096},      {"4K", 4096},        {"4k", 4096},
      {"4KB", 4096},       {"4KiB", 4096},      {"64M", 64ull << 20},
      {"1G", 1ull << 30},  {"1gib", 1ull << 30}, {"2T", 2ull << 40},
      {"128B", 128},       {"1", 1},            {"16777216K", 16ull << 30}};
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
    uint64_t v = 0;
    char err[128] = "";
    assert_int_equal(mb_parse_size(ok[i].s, &v, err, sizeof err), 0);
    assert_true(v == ok[i].v);
    assert_string_equal(err, "");
  }
}

static void test_invalid_sizes(void **state) {
  (void)state;
  static const char *const bad[] = {"",   "K",   "-4K", "4X",  "4K5", "1.5M", "0",
                                    "0K", " 4K", "4 K", "+4K", "4KK", "0x10",
                                    "99999999999999999999", "17179869184G", "16777216T"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    uint64_t v = 12345;
    char err[200] = "";
    assert_int_equal(mb_parse_size(bad[i], &v, err, sizeof err), -1);
    assert_true(v == 12345); /* output untouched on error */
    assert_true(strlen(err) > 0);
    if (bad[i][0]) assert_non_null(strstr(err, bad[i])); /* quotes the input */
  }
  /* A NULL error buffer is allowed. */
  uint64_t v;
  assert_int_equal(mb_parse_size("junk", &v, NULL, 0), -1);
}

static void test_uint(void **state) {
  (void)state;
  uint64_t v;
  char err[200];
  assert_int_equal(mb_parse_uint("17", 1, 100, &v, err, sizeof err), 0);
  assert_true(v == 17);
  assert_int_equal(mb_parse_uint("0", 1, 100, &v, err, sizeof err), -1);
  assert_non_null(strstr(err, "out of range"));
  assert_int_equal(mb_parse_uint("101", 1, 100, &v, err, sizeof err), -1);
  assert_int_equal(mb_parse_uint("1e3", 0, 10000, &v, err, sizeof err), -1);
  assert_int_equal(mb_parse_uint("-1", 0, 10, &v, err, sizeof err), -1);
  assert_int_equal(mb_parse_uint("", 0, 10, &v, err, sizeof err), -1);
  assert_int_equal(mb_parse_uint("18446744073709551616", 0, UINT64_MAX, &v, err, sizeof err), -1);
}

static void test_format(void **state) {
  (void)state;
  char b[32];
  assert_string_equal(mb_fmt_size(100, b, sizeof b), "100B");
  assert_string_equal(mb_fmt_size(4096, b, sizeof b), "4K");
  assert_string_equal(mb_fmt_size(1536, b, sizeof b), "1.5K");
  assert_string_equal(mb_fmt_size(19ull << 20, b, sizeof b), "19M");
  assert_string_equal(mb_fmt_size(1ull << 30, b, sizeof b), "1G");
  assert_string_equal(mb_fmt_size(4871, b, sizeof b), "4.76K");
}

static void test_steps(void **state) {
  (void)state;
  uint64_t v[64];
  size_t n = mb_size_steps(4096, 65536, 4, 64, v, 64);
  assert_int_equal(n, 17); /* 4 octaves x 4 + 1 */
  assert_true(v[0] == 4096 && v[4] == 8192 && v[8] == 16384 && v[16] == 65536);
  for (size_t i = 0; i < n; i++) {
    assert_int_equal(v[i] % 64, 0);
    if (i) assert_true(v[i] > v[i - 1]);
  }
  /* A top that is not on the ladder is still the last size. */
  n = mb_size_steps(4096, 10000, 4, 64, v, 64);
  assert_true(v[n - 1] == 9984); /* 10000 rounded down to 64 */
  /* Single size. */
  n = mb_size_steps(8192, 8192, 4, 64, v, 64);
  assert_int_equal(n, 1);
  /* Small integer ladders (page counts) have no duplicates. */
  n = mb_size_steps(1, 16, 4, 1, v, 64);
  for (size_t i = 1; i < n; i++) assert_true(v[i] > v[i - 1]);
  assert_true(v[0] == 1 && v[n - 1] == 16);
  /* Nonsense inputs give nothing. */
  assert_int_equal(mb_size_steps(0, 16, 4, 1, v, 64), 0);
  assert_int_equal(mb_size_steps(16, 8, 4, 1, v, 64), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_valid_sizes), cmocka_unit_test(test_invalid_sizes),
      cmocka_unit_test(test_uint),        cmocka_unit_test(test_format),
      cmocka_unit_test(test_steps),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
