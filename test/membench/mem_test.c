/*
 * mem_test.c - benchmark buffers (mem.c) and the sysfs helper (sysinfo.c):
 * the 2 MiB kind is 2 MiB aligned and covers the request, smaps accounting
 * covers the mapping, the huge-page fraction is within [0, 1], a 2M buffer
 * that is not fully huge always carries a reason naming the THP mode, and
 * bracketed sysfs choices parse.  Whether the kernel grants huge pages is
 * not asserted: that is the machine's business.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "membench.h"

static void test_4k_buffer(void **state) {
  (void)state;
  mb_sysinfo_t si;
  mb_sysinfo_read(&si);
  mb_buf_t b;
  assert_int_equal(mb_buf_alloc(&b, 1u << 20, MB_PAGES_4K, &si), 0);
  assert_non_null(b.base);
  assert_true(b.maplen >= (1u << 20));
  assert_true(b.huge_fraction >= 0 && b.huge_fraction <= 1);
  if (b.huge_fraction > 0) assert_true(strlen(b.why) > 0);
  uint64_t huge, total;
  assert_int_equal(mb_smaps_huge(b.base, b.maplen, &huge, &total), 0);
  assert_true(total >= b.maplen);
  mb_buf_free(&b);
}

static void test_2m_buffer_and_reason(void **state) {
  (void)state;
  mb_sysinfo_t si;
  mb_sysinfo_read(&si);
  /* Pretend THP is off and nothing is reserved: if the kernel still gives
   * huge pages the fraction is 1; otherwise the reason must say 'never'. */
  snprintf(si.thp_enabled, sizeof si.thp_enabled, "never");
  si.hugetlb_free = 0;
  mb_buf_t b;
  assert_int_equal(mb_buf_alloc(&b, 3u << 20, MB_PAGES_2M, &si), 0);
  assert_int_equal((uintptr_t)b.base % MB_HUGE, 0);
  assert_true(b.maplen >= (3u << 20) && b.maplen % MB_HUGE == 0);
  assert_false(b.hugetlb);
  assert_true(b.huge_fraction >= 0 && b.huge_fraction <= 1);
  if (b.huge_fraction < 0.999) {
    assert_non_null(strstr(b.why, "never"));
    assert_non_null(strstr(b.why, "hugetlb"));
  }
  mb_buf_free(&b);
}

static void test_bracketed(void **state) {
  (void)state;
  char path[] = "/tmp/membench-bracketXXXXXX", buf[32];
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, "always [madvise] never\n", 23), 23);
  close(fd);
  mb_read_bracketed(path, buf, sizeof buf);
  assert_string_equal(buf, "madvise");
  unlink(path);
  mb_read_bracketed("/nonexistent/membench", buf, sizeof buf);
  assert_string_equal(buf, "");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_4k_buffer),
      cmocka_unit_test(test_2m_buffer_and_reason),
      cmocka_unit_test(test_bracketed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
