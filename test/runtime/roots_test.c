/* roots_test.c - root arrays and registered root slots. */
#define CP_TEST_DEFINE_TYPES
#include "internal.h"
#include "testtypes.h"
#include "testutil.h"

#include <pthread.h>

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
               "is not a root array from cp_root_array_alloc (freed twice, "
               "or not the start of one)");
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

static void free_bad_array(void *arg) {
  (void)arg;
  char *buf = calloc(1, 256); /* zeroed: no root-array header before +64 */
  cp_root_array_free((void **)(buf + 64));
}

static void test_bad_root_array(void **state) {
  (void)state;
  expect_fatal(free_bad_array, NULL, "is not a root array");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_root_arrays),
      cmocka_unit_test(test_free_any),
      cmocka_unit_test(test_free_any_errors),
      cmocka_unit_test(test_registered),
      cmocka_unit_test(test_thread_local_roots),
      cmocka_unit_test(test_bad_root_array),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
