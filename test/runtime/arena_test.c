/* arena_test.c - where the compact arena goes, how it fits an address-space
 * limit, and the wide arena's fitting; one process per fatal case. */
#define _GNU_SOURCE
#define CP_TEST_DEFINE_TYPES
#include "internal.h"
#include "testtypes.h"
#include "testutil.h"

#include <signal.h>
#include <sys/resource.h>

static void test_reservation(void **state) {
  (void)state;
  const cp_reservation_t *r = &cp__reservation;
  /* Placed by the constructor, before main, below the reach of handles. */
  assert_true(r->done);
  assert_true(r->ok);
  assert_true((uintptr_t)r->lo >= (uintptr_t)2 << 20);
  assert_true((uintptr_t)r->lo + r->bytes <= CP_ARENA_REACH);
  assert_int_equal((uintptr_t)r->lo % ((uintptr_t)2 << 20), 0);
  if (r->low)
    assert_int_equal((uintptr_t)r->lo, (uintptr_t)2 << 20);
  void *p = cp_alloc(&node_desc);
  assert_true(cp__arena_contains(&cp__compact_arena, p));
  assert_false(cp__arena_contains(&cp__compact_arena, NULL));
  assert_ptr_equal(cp__compact_arena.base, r->lo);
  cp_free(p);
}

/* A field access through a NULL handle faults, as a null-pointer access
 * does: nothing is mapped at the lowest 64 KiB. */
static void test_null_handle_faults(void **state) {
  (void)state;
  void *p = cp_alloc(&node_desc);
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    signal(SIGSEGV, SIG_DFL); /* not cmocka's or the sanitizer's handler */
    volatile struct c_node *n = cp_decode(*(volatile cp_handle_t *)&(cp_handle_t){0});
    n->prev = 1;
    _exit(0);
  }
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFSIGNALED(status));
  assert_int_equal(WTERMSIG(status), SIGSEGV);
  cp_free(p);
}

static void missing_under_limit(void *arg) {
  (void)arg;
  cp_reservation_t *r = &cp__reservation;
  cp__compact_reserve_release();
  *r = (cp_reservation_t){.done = true, .limit = CP_ARENA_REACH,
                          .as_limit = (uint64_t)12 << 20,
                          .as_free = (uint64_t)300 << 10};
  cp_arena_t a;
  if (!cp__compact_arena_adopt(&a))
    cp__compact_arena_missing();
}
static void missing_no_gap(void *arg) {
  (void)arg;
  cp_reservation_t *r = &cp__reservation;
  cp__compact_reserve_release();
  *r = (cp_reservation_t){.done = true, .limit = CP_ARENA_REACH,
                          .as_free = UINT64_MAX};
  cp__compact_arena_missing();
}

static void test_no_room(void **state) {
  (void)state;
  expect_fatal(missing_under_limit, NULL,
               "cannot reserve the compact arena under the address-space "
               "limit (RLIMIT_AS, ulimit -v) of 12582912 bytes: 307200 bytes "
               "were free at start-up");
  expect_fatal(missing_no_gap, NULL, "cannot place the compact arena below");
}

/* The largest gap in a range, from /proc/self/maps: nothing is mapped
 * there, and it is 2 MiB aligned.  (Below the reach there is none: the
 * arena fills it, or a sanitizer's shadow does.) */
static void test_largest_gap(void **state) {
  (void)state;
  uintptr_t start;
  size_t bytes;
  uintptr_t hi = (uintptr_t)1 << 46;
  assert_true(cp__os_largest_gap((uintptr_t)2 << 20, hi, &start, &bytes));
  assert_int_equal(start % ((uintptr_t)2 << 20), 0);
  assert_true(start + bytes <= hi);
  size_t probe = bytes < ((size_t)1 << 20) ? bytes : (size_t)1 << 20;
  void *p = cp__os_reserve_at(start, probe);
  assert_non_null(p);
  cp__os_release(p, probe);
}

/* Under RLIMIT_AS the wide arena takes three quarters of what is left, not
 * COMPACTPTR_WIDE_RESERVE (1 TiB), and says so when it runs out. */
static void test_wide_fits_limit(void **state) {
  (void)state;
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    uint64_t lim;
    uint64_t free0 = cp__os_address_space_free(&lim);
    (void)free0;
    /* Whatever is mapped now plus 256 MiB. */
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (!f || fscanf(f, "%lu", &pages) != 1)
      _exit(3);
    fclose(f);
    struct rlimit rl;
    rl.rlim_cur = rl.rlim_max = pages * 4096ul + (256ul << 20);
    if (setrlimit(RLIMIT_AS, &rl) != 0)
      _exit(4);
    cp_arena_t a;
    cp__wide_arena_reserve(&a);
    size_t got = (size_t)a.npages << CP_PAGE_SHIFT;
    if (got > (192ul << 20) || got < (64ul << 20))
      _exit(5);
    if (!strstr(cp__arena_limit_note(&a), "RLIMIT_AS of"))
      _exit(6);
    _exit(0);
  }
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reservation),
      cmocka_unit_test(test_null_handle_faults),
      cmocka_unit_test(test_no_room),
      cmocka_unit_test(test_largest_gap),
      cmocka_unit_test(test_wide_fits_limit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
