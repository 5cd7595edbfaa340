/* buddy_test.c - the buddy allocator: split, coalesce, alignment, limits,
 * and the delayed give-back of free chunks. */
#include "internal.h"
#include "testutil.h"

#include <sys/mman.h>
#include <time.h>

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
  /* Nothing is carved before it is asked for. */
  assert_int_equal(a.frontier, 1);
  for (uint32_t k = 0; k <= 6; k++)
    assert_int_equal(a.free_head[k], CP_NONE);
}

static void test_split_and_coalesce(void **state) {
  (void)state;
  /* An order-2 run is carved at page 4, after 1 and 2-3 that align it. */
  uint32_t r = cp__buddy_alloc(&a, 2);
  assert_int_equal(r, 4);
  assert_int_equal(a.frontier, 8);
  assert_int_equal(a.free_head[0], 1);
  assert_int_equal(a.free_head[1], 2);
  uint32_t p = cp__buddy_alloc(&a, 0);
  assert_int_equal(p, 1); /* a free run before the frontier */
  uint32_t q = cp__buddy_alloc(&a, 0);
  assert_int_equal(q, 2); /* splits 2-3 */
  assert_int_equal(a.free_head[0], 3);
  assert_true(cp__buddy_is_valid(&a));
  cp__buddy_free(&a, q, 0);
  assert_int_equal(a.free_head[1], 2); /* 2 and 3 merged again */
  cp__buddy_free(&a, p, 0);
  cp__buddy_free(&a, r, 2);
  assert_int_equal(a.free_head[2], 4); /* 4-7: its buddy 0-3 holds page 0 */
  assert_true(cp__buddy_is_valid(&a));
  assert_int_equal(a.used_pages, 0);
  /* Records above the frontier are never written. */
  for (uint32_t i = a.frontier; i < 64; i++)
    assert_int_equal(a.runs[i].order, 0);
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
    cp__buddy_free(&a, got[i], a.runs[got[i]].order);
  assert_int_equal(a.used_pages, 0);
  assert_true(cp__buddy_is_valid(&a));
  assert_int_equal(cp__buddy_alloc(&a, 6), CP_NONE); /* page 0 is never free */
}

/* An arena whose size is no power of two: the frontier's last carve takes
 * the largest aligned runs that fit below the top, and every page is
 * handed out exactly once. */
static void test_uneven_top(void **state) {
  (void)state;
  cp_arena_t u;
  assert_true(cp__arena_init(&u, 1 << 20, 50 * CP_PAGE_SIZE, 1, false));
  /* 1, 2-3, 4-7, 8-15, 16-31 align the frontier for 32-63, which does not
   * fit: 32-47 and 48-49 are carved instead. */
  assert_int_equal(cp__buddy_alloc(&u, 5), CP_NONE);
  assert_int_equal(u.frontier, 50);
  assert_true(cp__buddy_is_valid(&u));
  static bool seen[50];
  uint32_t pages = 0;
  for (uint32_t p; (p = cp__buddy_alloc(&u, 0)) != CP_NONE; pages++) {
    assert_true(p >= 1 && p < 50);
    assert_false(seen[p]);
    seen[p] = true;
  }
  assert_int_equal(pages, 49);
  assert_true(cp__buddy_is_valid(&u));
  for (uint32_t p = 1; p < 50; p++)
    cp__buddy_free(&u, p, 0);
  assert_int_equal(u.used_pages, 0);
  assert_true(cp__buddy_is_valid(&u));
  assert_int_equal(u.free_head[4], 32); /* merged back to the carved runs */
  assert_int_equal(u.free_head[1], 48);
  cp__arena_destroy(&u);
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

/* A small heap must not pay for 2 MiB pages: the chunks of an arena's
 * first 8 MiB of commits are advised MADV_NOHUGEPAGE ("nh"), later ones
 * MADV_HUGEPAGE ("hg"), and once the heap has grown past 8 MiB the first
 * ones get "hg" too. */
static void test_small_heap_small_pages(void **state) {
  (void)state;
  if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) != 0)
    skip(); /* no THP in this kernel: no advice to check */
  cp_arena_t b;
  const size_t chunk = (size_t)1 << CP_COMMIT_SHIFT;
  assert_true(cp__arena_init(&b, 16 * chunk, 16 * chunk, 1, false));
  char flags[512];
  uint32_t p = cp__buddy_alloc(&b, 0);
  assert_int_not_equal(p, CP_NONE);
  assert_int_equal(vm_flags_at(cp__arena_addr(&b, p), flags, sizeof flags), 0);
  assert_true(has_flag(flags, "nh"));
  assert_false(has_flag(flags, "hg"));
  /* 2 MiB runs cannot fit in the first chunk (page 0 is reserved): each
   * commits a chunk of its own.  The three after the first are still in
   * the first 8 MiB. */
  uint32_t k = CP_COMMIT_SHIFT - CP_PAGE_SHIFT, q[5];
  for (int i = 0; i < 3; i++) {
    q[i] = cp__buddy_alloc(&b, k);
    assert_int_not_equal(q[i], CP_NONE);
    assert_int_equal(
        vm_flags_at(cp__arena_addr(&b, q[i]), flags, sizeof flags), 0);
    assert_true(has_flag(flags, "nh"));
  }
  /* The first chunk is clipped at page 1 (page 0 is never accessible). */
  assert_int_equal(b.committed_bytes, 4 * chunk - CP_PAGE_SIZE);
  /* The fifth chunk takes the heap past 8 MiB: huge pages from there on,
   * and for the chunks before. */
  q[3] = cp__buddy_alloc(&b, k);
  q[4] = cp__buddy_alloc(&b, k);
  assert_int_not_equal(q[4], CP_NONE);
  assert_int_equal(vm_flags_at(cp__arena_addr(&b, q[4]), flags, sizeof flags),
                   0);
  assert_true(has_flag(flags, "hg"));
  assert_false(has_flag(flags, "nh"));
  assert_int_equal(vm_flags_at(cp__arena_addr(&b, p), flags, sizeof flags), 0);
  assert_true(has_flag(flags, "hg"));
  assert_false(has_flag(flags, "nh"));
  cp__arena_destroy(&b);
}

enum { CHUNK = CP_COMMIT_SHIFT - CP_PAGE_SHIFT };

/* Is the first page at p resident? */
static bool resident(const void *p) {
  unsigned char v = 0;
  assert_int_equal(mincore((void *)p, CP_PAGE_SIZE, &v), 0);
  return v & 1;
}

static bool reads_zero(const char *p, size_t bytes) {
  for (size_t i = 0; i < bytes; i += 512)
    if (p[i])
      return false;
  return p[bytes - 1] == 0;
}

/* A freed chunk is kept (resident, counted dirty) and reused with a
 * memset; past 64 MiB of them they all go back, and a run made of
 * given-back chunks is cleared without a touch. */
static void test_free_chunks_kept_then_given_back(void **state) {
  (void)state;
  cp_arena_t b;
  const size_t chunk = (size_t)1 << CP_COMMIT_SHIFT;
  assert_true(cp__arena_init(&b, 256 * chunk, 256 * chunk, 1, false));
  uint32_t p = cp__buddy_alloc_to_zero(&b, CHUNK);
  char *m = cp__arena_addr(&b, p);
  cp__buddy_zero(&b, m, chunk);
  assert_int_equal(b.committed[p >> CHUNK], CP_CHUNK_DIRTY);
  memset(m, 0xab, chunk);
  cp__buddy_free(&b, p, CHUNK);
  assert_int_equal(b.dirty_free_chunks, 1);
  assert_true(cp__buddy_is_valid(&b));
  assert_true(resident(m)); /* kept */
  uint32_t q = cp__buddy_alloc_to_zero(&b, CHUNK);
  assert_int_equal(q, p);
  assert_int_equal(b.dirty_free_chunks, 0);
  cp__buddy_zero(&b, m, chunk);
  assert_true(reads_zero(m, chunk));
  /* 40 dirty chunks (80 MiB) are more than are kept: all go back. */
  uint32_t r = cp__buddy_alloc_to_zero(&b, CHUNK + 6);
  char *big = cp__arena_addr(&b, r);
  cp__buddy_zero(&b, big, (size_t)40 * chunk);
  for (size_t i = 0; i < 40 * chunk; i += CP_PAGE_SIZE)
    big[i] = 1;
  cp__buddy_free(&b, r, CHUNK + 6);
  assert_int_equal(b.dirty_free_chunks, 0);
  assert_true(cp__buddy_is_valid(&b));
  assert_false(resident(big));
  assert_int_equal(b.committed[r >> CHUNK], CP_CHUNK_ZERO);
  uint32_t s = cp__buddy_alloc_to_zero(&b, CHUNK + 6);
  assert_int_equal(s, r);
  cp__buddy_zero(&b, big, (size_t)40 * chunk);
  assert_false(resident(big));           /* nothing touched */
  assert_false(resident(big + 39 * chunk));
  assert_true(reads_zero(big, 40 * chunk));
  cp__buddy_free(&b, s, CHUNK + 6);
  cp__buddy_free(&b, q, CHUNK);
  assert_true(cp__buddy_is_valid(&b));
  cp__arena_destroy(&b);
}

/* A kept chunk goes back once it has waited long enough, at the next
 * allocation of any run. */
static void test_kept_chunk_goes_back_later(void **state) {
  (void)state;
  cp_arena_t b;
  const size_t chunk = (size_t)1 << CP_COMMIT_SHIFT;
  assert_true(cp__arena_init(&b, 8 * chunk, 8 * chunk, 1, false));
  uint32_t p = cp__buddy_alloc(&b, CHUNK);
  uint32_t q = cp__buddy_alloc(&b, CHUNK + 1);
  char *m = cp__arena_addr(&b, p), *n = cp__arena_addr(&b, q);
  memset(m, 0xcd, chunk);
  memset(n, 0xef, 2 * chunk);
  cp__buddy_free(&b, p, CHUNK);
  assert_int_equal(b.dirty_free_chunks, 1);
  assert_true(resident(m));
  nanosleep(&(struct timespec){0, 300 * 1000 * 1000}, NULL);
  /* A second run freed now does not restart the first one's wait; the
   * give-back that follows takes both. */
  cp__buddy_free(&b, q, CHUNK + 1);
  uint32_t small = cp__buddy_alloc(&b, 0); /* in the first chunk */
  assert_true(small < (1u << CHUNK));
  assert_int_equal(b.dirty_free_chunks, 0);
  assert_false(resident(m));
  assert_false(resident(n));
  assert_true(cp__buddy_is_valid(&b));
  cp__arena_destroy(&b);
}

/* VmLck of /proc/self/status, in KiB (0 if unknown). */
static long locked_kib(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kib = 0;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmLck: %ld kB", &kib) == 1)
      break;
  if (f)
    fclose(f);
  return kib;
}

/* A chunk the kernel will not give back (a locked page) stays dirty and
 * counted; the others go; it goes once unlocked, a second later. */
static void test_locked_chunk_is_tried_again(void **state) {
  (void)state;
  cp_arena_t b;
  const size_t chunk = (size_t)1 << CP_COMMIT_SHIFT;
  assert_true(cp__arena_init(&b, 128 * chunk, 128 * chunk, 1, false));
  uint32_t p = cp__buddy_alloc(&b, CHUNK);
  char *m = cp__arena_addr(&b, p);
  memset(m, 0x11, chunk);
  if (mlock(m, CP_PAGE_SIZE) != 0 || locked_kib() == 0) {
    cp__arena_destroy(&b);
    skip(); /* no locked memory here (AddressSanitizer ignores mlock) */
  }
  uint32_t q = cp__buddy_alloc(&b, CHUNK + 6); /* 128 MiB: past the limit */
  char *n = cp__arena_addr(&b, q);
  for (size_t i = 0; i < 64 * chunk; i += CP_PAGE_SIZE)
    n[i] = 1;
  cp__buddy_free(&b, p, CHUNK);
  cp__buddy_free(&b, q, CHUNK + 6);
  assert_int_equal(b.dirty_free_chunks, 1); /* the locked one */
  assert_int_equal(b.committed[p >> CHUNK], CP_CHUNK_DIRTY);
  assert_false(resident(n));
  assert_true(m[0] == 0x11);
  assert_true(cp__buddy_is_valid(&b));
  assert_int_equal(munlock(m, CP_PAGE_SIZE), 0);
  nanosleep(&(struct timespec){1, 200 * 1000 * 1000}, NULL);
  cp__buddy_free(&b, cp__buddy_alloc(&b, 0), 0);
  assert_int_equal(b.dirty_free_chunks, 0);
  assert_false(resident(m));
  assert_true(cp__buddy_is_valid(&b));
  cp__arena_destroy(&b);
}

/* Runs of every size, zeroed or not, written and freed at random: every
 * cleared run reads as zero and the dirty count stays exact. */
static void test_random_zeroing(void **state) {
  (void)state;
  cp_arena_t b;
  const size_t chunk = (size_t)1 << CP_COMMIT_SHIFT;
  assert_true(cp__arena_init(&b, 64 * chunk, 64 * chunk, 1, false));
  uint64_t seed = 0x2545f4914f6cdd1dull;
  print_message("seed %#llx\n", (unsigned long long)seed);
  uint32_t page[64], order[64];
  int n = 0;
  for (int step = 0; step < 3000; step++) {
    if (n < 64 && (n == 0 || rng_below(&seed, 2))) {
      uint32_t k = rng_below(&seed, CHUNK + 3);
      bool to_zero = rng_below(&seed, 2);
      uint32_t p = to_zero ? cp__buddy_alloc_to_zero(&b, k) : cp__buddy_alloc(&b, k);
      if (p == CP_NONE)
        continue;
      char *m = cp__arena_addr(&b, p);
      size_t bytes = ((size_t)CP_PAGE_SIZE << k) - rng_below(&seed, 4096);
      if (to_zero) {
        cp__buddy_zero(&b, m, bytes);
        assert_true(reads_zero(m, bytes));
      }
      /* dirty a few pages, or all of them */
      size_t stride = rng_below(&seed, 2) ? CP_PAGE_SIZE : (size_t)CP_PAGE_SIZE * 97;
      for (size_t i = 0; i < bytes; i += stride)
        m[i] = (char)(step | 1);
      page[n] = p;
      order[n++] = k;
    } else {
      int i = (int)rng_below(&seed, (uint32_t)n);
      cp__buddy_free(&b, page[i], order[i]);
      page[i] = page[--n];
      order[i] = order[n];
    }
    if (step % 31 == 0)
      assert_true(cp__buddy_is_valid(&b));
  }
  while (n)
    --n, cp__buddy_free(&b, page[n], order[n]);
  assert_true(cp__buddy_is_valid(&b));
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
      cmocka_unit_test(test_uneven_top),
      cmocka_unit_test(test_order_for_bytes),
      cmocka_unit_test(test_small_heap_small_pages),
      cmocka_unit_test(test_free_chunks_kept_then_given_back),
      cmocka_unit_test(test_kept_chunk_goes_back_later),
      cmocka_unit_test(test_locked_chunk_is_tried_again),
      cmocka_unit_test(test_random_zeroing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
