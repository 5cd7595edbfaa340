/* roots_test.c - root arrays and registered root slots. */
#define CP_TEST_DEFINE_TYPES
#include "internal.h"
#include "testtypes.h"
#include "testutil.h"

#include <pthread.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static void count_slot(void **slot, cp_type_t *t, const char *name,
                       void *ctx) {
  (void)t;
  (void)name;
  if (*slot)
    ++*(int *)ctx;
}

static void test_root_arrays(void **state) {
  (void)state;
  void **a = cp_root_array_alloc(10);
  for (int i = 0; i < 10; i++)
    assert_null(a[i]);
  a[3] = cp_alloc(&node_desc);
  a = cp_root_array_realloc(a, 1000);
  assert_non_null(a[3]);
  assert_null(a[999]);
  int n = 0;
  cp__roots_each(count_slot, &n);
  assert_int_equal(n, 1);
  a = cp_root_array_realloc(a, 2);
  assert_null(a[0]);
  assert_non_null(a[1] = a[1] ? a[1] : cp_alloc(&node_desc));
  cp_root_array_free(a);
  cp_root_array_free(NULL);
  assert_null(cp_root_array_realloc(cp_root_array_alloc(1), 0));
  assert_null(cp_try_root_array_alloc(SIZE_MAX / 4));
}

/* free and realloc of any pointer type (what compactptr.h links them to):
 * root arrays, compact objects and libc memory each go where they belong,
 * and blocks of the root-array region are reused, zeroed. */
static void test_free_any(void **state) {
  (void)state;
  void **a = cp_root_array_alloc(5);
  assert_true(cp__is_root_array_memory(a));
  a[4] = cp_alloc(&node_desc);
  uint64_t arrays = cp__root_arrays;
  void *grown = cp_realloc_any(a, 50 * sizeof(void *) + 3); /* rounds up */
  assert_true(cp__is_root_array_memory(grown));
  assert_non_null(((void **)grown)[4]);
  assert_null(((void **)grown)[50]);
  assert_int_equal(cp__root_arrays, arrays);
  cp_free_any(((void **)grown)[4]); /* a compact object */
  cp_free_any(grown);
  assert_int_equal(cp__root_arrays, arrays - 1);
  /* The block comes back for the same size class, zeroed. */
  void **b = cp_root_array_alloc(50);
  assert_ptr_equal(b, grown);
  for (int i = 0; i < 51; i++)
    assert_null(b[i]);
  assert_null(cp_realloc_any(b, 0));
  /* A large block gives its pages back and is reused zeroed. */
  void **big = cp_root_array_alloc(100000);
  for (int i = 0; i < 100000; i++)
    big[i] = (void *)(uintptr_t)(i + 1);
  cp_root_array_free(big);
  void **big2 = cp_root_array_alloc(100000);
  assert_ptr_equal(big2, big);
  for (int i = 0; i < 100000; i++)
    assert_null(big2[i]);
  cp_free_any(big2);
  /* libc memory. */
  char *m = malloc(16);
  assert_false(cp__is_root_array_memory(m));
  m = cp_realloc_any(m, 4096);
  m[4095] = 1;
  cp_free_any(m);
  cp_free_any(NULL);
  char *fresh = cp_realloc_any(NULL, 8);
  assert_non_null(fresh);
  cp_free_any(fresh);
}

/* Pinned objects: blocks of the root-array region whose header names a
 * type; the switch visits each compact pointer of each value. */
struct w_box {
  pthread_mutex_t mu;
  struct w_node *first;
  long n;
};
static const cp_field_desc_t box_fields[] = {
    FIELD("first", struct w_box, struct w_box, first, CP_FIELD_HANDLE, 1, 0,
          &node_desc),
};
static DESC(box_desc, "box", struct w_box, struct w_box, box_fields);

static void test_pinned(void **state) {
  (void)state;
  uint64_t blocks = cp__pinned_blocks, arrays = cp__root_arrays;
  struct w_box *b = cp_pinned_alloc(&box_desc, 4);
  assert_true(cp__is_root_array_memory(b));
  assert_int_equal(cp__pinned_blocks, blocks + 1);
  assert_int_equal(cp__root_arrays, arrays);
  for (int i = 0; i < 4; i++) {
    assert_null(b[i].first);
    assert_int_equal(b[i].n, 0);
  }
  b[1].first = cp_alloc(&node_desc);
  b[3].first = cp_alloc(&node_desc);
  int n = 0;
  cp__roots_each(count_slot, &n);
  assert_int_equal(n, 2);
  b = cp_pinned_realloc(&box_desc, b, 2); /* the second value stays */
  assert_non_null(b[1].first);
  n = 0;
  cp__roots_each(count_slot, &n);
  assert_int_equal(n, 1);
  cp_stats_t st;
  cp_get_stats(&st, NULL, 0);
  assert_int_equal(st.pinned_blocks, blocks + 1);
  assert_int_equal(st.pinned_bytes, 2 * sizeof *b);
  cp_free(b[1].first);
  cp_pinned_free(b);
  assert_int_equal(cp__pinned_blocks, blocks);
  assert_null(cp_pinned_realloc(&box_desc, cp_pinned_alloc(&box_desc, 1), 0));
  cp_pinned_free(NULL);
}

/* A pinned struct aligned to a cache line (a padded shard): its values
 * sit at that alignment inside their block, which goes back whole. */
struct w_shard {
  pthread_mutex_t mu;
  struct w_node *first;
} __attribute__((aligned(64)));
static const cp_field_desc_t shard_fields[] = {
    FIELD("first", struct w_shard, struct w_shard, first, CP_FIELD_HANDLE, 1, 0,
          &node_desc),
};
static DESC(shard_desc, "shard", struct w_shard, struct w_shard, shard_fields);

static void test_pinned_aligned(void **state) {
  (void)state;
  for (int round = 0; round < 3; round++) {
    struct w_shard *a = cp_pinned_alloc(&shard_desc, 3);
    void **other = cp_root_array_alloc(5);
    assert_int_equal((uintptr_t)a % 64, 0);
    a[2].first = cp_alloc(&node_desc);
    int n = 0;
    cp__roots_each(count_slot, &n);
    assert_int_equal(n, 1);
    a = cp_realloc_any(a, 7 * sizeof *a);
    assert_int_equal((uintptr_t)a % 64, 0);
    assert_non_null(a[2].first);
    assert_null(a[6].first);
    cp_free(a[2].first);
    cp_free_any(a);
    cp_root_array_free(other);
  }
}

/* Under mlockall the kernel keeps a freed large block's pages (it refuses
 * MADV_DONTNEED on locked memory): the block taken again is cleared all
 * the same (a calloc of that size had returned the old pointers).  In a
 * child, which may lack the privilege: then nothing is checked. */
static void test_locked_pages(void **state) {
  (void)state;
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0)
      _exit(77);
    size_t n = (size_t)1 << 14; /* 128 KiB of slots */
    void **a = cp_root_array_alloc(n);
    for (size_t i = 0; i < n; i++)
      a[i] = &a[i];
    cp_root_array_free(a);
    void **b = cp_root_array_alloc(n);
    size_t left = 0;
    for (size_t i = 0; i < n; i++)
      left += b[i] != NULL;
    _exit(b == a && left == 0 ? 0 : 1);
  }
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77)
    print_message("mlockall refused: not checked\n");
  else
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* A root array takes its slots and a 16-byte header, rounded up to 16
 * bytes (as libc's malloc rounds a chunk): eight pointers, 80 bytes. */
static void test_root_array_size(void **state) {
  (void)state;
  /* Blocks of a class no other test frees, so both come from the bump. */
  void **a = cp_root_array_alloc(8), **b = cp_root_array_alloc(8);
  assert_int_equal((char *)b - (char *)a, 80);
  cp_root_array_free(a);
  cp_root_array_free(b);
}

/* Every live block is visited once, and nothing else, through any mix of
 * sizes, kinds, frees and resizes: a slot of each block names it. */
typedef struct visit {
  void **seen[4096];
  int n;
} visit_t;
static void record_slot(void **slot, cp_type_t *t, const char *name,
                        void *ctx) {
  (void)t;
  (void)name;
  visit_t *v = ctx;
  if (*slot && v->n < 4096)
    v->seen[v->n++] = *slot;
}
static void test_root_arrays_random(void **state) {
  (void)state;
  enum { LIVE = 300, STEPS = 20000 };
  static void *blocks[LIVE];
  static int pinned[LIVE];
  static visit_t v;
  uint64_t seed = 0x5eed0042;
  print_message("seed %llx\n", (unsigned long long)seed);
  uint64_t arrays = cp__root_arrays, pinned_blocks = cp__pinned_blocks;
  for (int step = 0; step < STEPS; step++) {
    int i = (int)rng_below(&seed, LIVE);
    if (blocks[i] && rng_below(&seed, 3) == 0) {
      cp_free_any(blocks[i]);
      blocks[i] = NULL;
    } else if (blocks[i] && !pinned[i]) {
      size_t n = 1 + rng_below(&seed, rng_below(&seed, 8) ? 40 : 3000);
      blocks[i] = cp_root_array_realloc(blocks[i], n);
      assert_ptr_equal(((void **)blocks[i])[0], &blocks[i]);
    } else if (!blocks[i]) {
      pinned[i] = rng_below(&seed, 4) == 0;
      if (pinned[i]) {
        struct w_shard *sh =
            cp_pinned_alloc(&shard_desc, 1 + rng_below(&seed, 3));
        assert_int_equal((uintptr_t)sh % 64, 0);
        blocks[i] = sh;
      } else {
        size_t n = 1 + rng_below(&seed, rng_below(&seed, 8) ? 40 : 3000);
        void **a = cp_root_array_alloc(n);
        for (size_t k = 0; k < n; k++)
          assert_null(a[k]);
        a[0] = &blocks[i];
        blocks[i] = a;
      }
    }
    if (step % 997 == 0 || step == STEPS - 1) {
      v.n = 0;
      cp__root_arrays_each(record_slot, &v);
      int live = 0;
      for (int k = 0; k < LIVE; k++)
        live += blocks[k] && !pinned[k];
      assert_int_equal(v.n, live);
      for (int k = 0; k < v.n; k++) {
        void **owner = v.seen[k];
        assert_true(owner >= (void **)blocks && owner < (void **)blocks + LIVE);
        assert_ptr_equal(((void **)*owner)[0], owner);
      }
      uint64_t pb = 0;
      for (int k = 0; k < LIVE; k++)
        pb += blocks[k] && pinned[k];
      assert_int_equal(cp__root_arrays - arrays, (uint64_t)live);
      assert_int_equal(cp__pinned_blocks - pinned_blocks, pb);
    }
  }
  for (int k = 0; k < LIVE; k++)
    cp_free_any(blocks[k]);
  assert_int_equal(cp__root_arrays, arrays);
  assert_int_equal(cp__pinned_blocks, pinned_blocks);
}

static void realloc_pinned_as_root_array(void *arg) {
  (void)arg;
  cp_root_array_realloc(cp_pinned_alloc(&box_desc, 1), 8);
}

static void realloc_root_array_as_pinned(void *arg) {
  (void)arg;
  cp_pinned_realloc(&box_desc, cp_root_array_alloc(4), 2);
}

static void free_pinned_twice(void *arg) {
  (void)arg;
  void *b = cp_pinned_alloc(&box_desc, 1);
  cp_free_any(b);
  cp_free_any(b);
}

static void test_pinned_errors(void **state) {
  (void)state;
  expect_fatal(realloc_pinned_as_root_array, NULL,
               "holds pinned 'box' objects, not compact pointers");
  expect_fatal(realloc_root_array_as_pinned, NULL,
               "as pinned 'box' objects: it holds compact pointers");
  expect_fatal(free_pinned_twice, NULL,
               "is not a root array or a pinned object of the runtime");
}

static void free_root_array_twice(void *arg) {
  (void)arg;
  void **a = cp_root_array_alloc(3);
  cp_free_any(a);
  cp_free_any(a);
}

static void free_root_array_inside(void *arg) {
  (void)arg;
  void **a = cp_root_array_alloc(3);
  cp_free_any(a + 1);
}

static void realloc_object_untyped(void *arg) {
  (void)arg;
  void *p = cp_alloc(&node_desc);
  cp_realloc_any(p, 64);
}

static void test_free_any_errors(void **state) {
  (void)state;
  expect_fatal(free_root_array_twice, NULL,
               "is not a root array or a pinned object of the runtime (freed "
               "twice, or not the start of one)");
  expect_fatal(free_root_array_inside, NULL, "is not a root array");
  expect_fatal(realloc_object_untyped, NULL,
               "a 'node' object, through a pointer the plugin cannot see is "
               "one");
}

static void test_registered(void **state) {
  (void)state;
  static void *g1, *g2[3];
  assert_int_equal(cp_root_register(&g1, 1), 0);
  assert_int_equal(cp_root_register(g2, 3), 0);
  g1 = cp_alloc(&node_desc);
  g2[2] = cp_alloc(&node_desc);
  int n = 0;
  cp__roots_each(count_slot, &n);
  assert_int_equal(n, 2);
  assert_int_equal(cp_root_unregister(&g1), 0);
  assert_int_equal(cp_root_unregister(&g1), -1);
  n = 0;
  cp__roots_each(count_slot, &n);
  assert_int_equal(n, 1);
  assert_int_equal(cp_root_register_value(NULL, NULL, 1), -1);
  /* a slot inside the compact heap is not native memory */
  void **inside = cp_alloc(&node_desc);
  assert_int_equal(cp_root_register(inside, 1), -1);
  assert_int_equal(cp_root_register(NULL, 1), -1);
  cp_free(inside);
}

/* Thread-local roots: each thread's copies are roots from the moment the
 * runtime knows the thread, and dropped when it exits. */
static _Thread_local void *tl_pair[2];
static void *tl_pair_addr(void) { return tl_pair; }
static const cp_tls_root_t tl_roots[] = {
    {tl_pair_addr, CP_ROOT_POINTER, 2, &node_desc, "tl_pair"}};
static pthread_barrier_t tl_bar;

static void *tl_worker(void *arg) {
  (void)arg;
  tl_pair[1] = cp_alloc(&node_desc); /* known from here: its copy is a root */
  pthread_barrier_wait(&tl_bar);     /* the test counts */
  pthread_barrier_wait(&tl_bar);
  return NULL;
}

static int live_roots(void) {
  int n = 0;
  cp__roots_each(count_slot, &n);
  return n;
}

static void test_thread_local_roots(void **state) {
  (void)state;
  int before = live_roots();
  cp_tls_roots_register(tl_roots, 1);
  tl_pair[0] = cp_alloc(&node_desc);
  assert_int_equal(live_roots(), before + 1);
  pthread_barrier_init(&tl_bar, NULL, 2);
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, tl_worker, NULL), 0);
  pthread_barrier_wait(&tl_bar);
  assert_int_equal(live_roots(), before + 2); /* the worker's copy too */
  pthread_barrier_wait(&tl_bar);
  pthread_join(t, NULL);
  assert_int_equal(live_roots(), before + 1); /* dropped at its exit */
  cp_free(tl_pair[0]);
  tl_pair[0] = NULL;
  pthread_barrier_destroy(&tl_bar);
}

/* A block of libc's the plugin took for a root array (an array of
 * compact pointers from the program's own xmalloc): libc frees and
 * resizes it, as natively. */
static void test_libc_block_as_root_array(void **state) {
  (void)state;
  uint64_t arrays = cp__root_arrays;
  void **a = malloc(4 * sizeof(void *));
  for (uintptr_t i = 0; i < 4; i++)
    a[i] = (void *)(i * 16 + 1);
  a = cp_root_array_realloc(a, 1000);
  assert_non_null(a);
  assert_false(cp__is_root_array_memory(a));
  for (uintptr_t i = 0; i < 4; i++)
    assert_ptr_equal(a[i], (void *)(i * 16 + 1));
  assert_int_equal(cp__root_arrays, arrays);
  cp_root_array_free(a);
  assert_null(cp_root_array_realloc(malloc(16), 0));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_root_arrays),
      cmocka_unit_test(test_free_any),
      cmocka_unit_test(test_free_any_errors),
      cmocka_unit_test(test_pinned),
      cmocka_unit_test(test_pinned_errors),
      cmocka_unit_test(test_pinned_aligned),
      cmocka_unit_test(test_root_array_size),
      cmocka_unit_test(test_locked_pages),
      cmocka_unit_test(test_root_arrays_random),
      cmocka_unit_test(test_registered),
      cmocka_unit_test(test_thread_local_roots),
      cmocka_unit_test(test_libc_block_as_root_array),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
