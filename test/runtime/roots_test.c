/* roots_test.c - root arrays and registered root slots. */
#define CP_TEST_DEFINE_TYPES
#include "internal.h"
#include "testtypes.h"
#include "testutil.h"

static void count_slot(void **slot, cp_type_t *t, void *ctx) {
  (void)t;
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
      cmocka_unit_test(test_registered),
      cmocka_unit_test(test_bad_root_array),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
