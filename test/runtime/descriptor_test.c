/* descriptor_test.c - descriptor registration, merging and mismatches. */
#define CP_TEST_DEFINE_TYPES
#include "internal.h"
#include "testtypes.h"
#include "testutil.h"

/* A second translation unit's copy of `node`: same layout, distinct
 * descriptor object, not in this module's section. */
static const cp_field_desc_t node_fields2[] = {
    FIELD("key", struct c_node, struct w_node, key, CP_FIELD_BYTES, 1, 4, NULL),
    FIELD("next", struct c_node, struct w_node, next, CP_FIELD_HANDLE, 1, 0, &node_desc),
    FIELD("prev", struct c_node, struct w_node, prev, CP_FIELD_HANDLE, 1, 0, &node_desc),
};
static DESC(node_copy, "node", struct c_node, struct w_node, node_fields2);

static void test_module_registers_all_types(void **state) {
  (void)state;
  assert_non_null(cp__type_resolve(&node_desc));
  /* Resolving one descriptor registered every type of the module. */
  assert_non_null(tree_desc.rt);
  assert_non_null(holder_desc.rt);
  assert_int_equal(cp__ntypes, 5);
}

/* Every translation unit of a module runs its load hook with the same
 * module: the image is recorded once. */
static void test_module_load_once(void **state) {
  (void)state;
  size_t n = cp__module_images();
  assert_true(n >= 1); /* this program's, at load */
  cp__module_load(&cp__module);
  cp__module_load(&cp__module);
  assert_int_equal(cp__module_images(), n);
  int local;
  cp__lock();
  assert_true(cp__in_module_image(&cp__module));
  assert_false(cp__in_module_image(&local));
  cp__unlock();
}

static void test_identical_descriptors_merge(void **state) {
  (void)state;
  assert_ptr_equal(cp__type_resolve(&node_copy), cp__type_resolve(&node_desc));
  void *p = cp_alloc(&node_copy);
  cp_type_stats_t ts[8];
  cp_stats_t s;
  uint32_t n = cp_get_stats(&s, ts, 8);
  assert_int_equal(n, 5);
  cp_free(p);
}

static const cp_field_desc_t node_fields_bad[] = {
    {"key", 8, 0, CP_FIELD_BYTES, 1, 4, NULL},
    {"next", 0, 8, CP_FIELD_HANDLE, 1, 0, &node_desc},
    {"prev", 4, 16, CP_FIELD_HANDLE, 1, 0, &node_desc},
};
static DESC(node_other, "node", struct c_node, struct w_node, node_fields_bad);

static void resolve_other(void *arg) {
  cp__type_resolve((cp_type_desc_t *)arg);
}

static cp_type_desc_t bad_granule = {CP_ABI_VERSION, CP_GRANULE_SHIFT + 1, 0,
                                     "g", 8, 4, 16, 8, 0, NULL, NULL, NULL};
static cp_type_desc_t bad_abi = {99, CP_GRANULE_SHIFT, 0,
                                 "a", 8, 4, 16, 8, 0, NULL, NULL, NULL};
static cp_type_desc_t bad_build = {CP_ABI_VERSION, CP_GRANULE_SHIFT,
                                   CP_BUILD_WIDE, "w", 8, 4, 16, 8, 0,
                                   NULL, NULL, NULL};
static const cp_field_desc_t outside_fields[] = {
    {"x", 4, 4, CP_FIELD_BYTES, 1, 8, NULL}};
static cp_type_desc_t bad_field = {CP_ABI_VERSION, CP_GRANULE_SHIFT, 0, "o",
                                   8, 4, 16, 8, 1, outside_fields, NULL, NULL};

/* A queue's `node **tail` as three translation units describe it: one
 * that does not read it, one that stores handle fields' addresses into it
 * (and reads it with a check), one that reads it as a plain pointer. */
struct w_q {
  struct w_node *head;
  struct w_node **tail;
};
struct c_q {
  cp_handle_t head;
  uint32_t pad;
  void *tail;
};
#define QUEUE_FIELDS(use)                                                      \
  {                                                                            \
    FIELD("head", struct c_q, struct w_q, head, CP_FIELD_HANDLE, 1, 0,         \
          &node_desc),                                                         \
        FIELD("tail", struct c_q, struct w_q, tail, CP_FIELD_SLOT, 1, use,     \
              NULL)                                                            \
  }
static const cp_field_desc_t q_none[] = QUEUE_FIELDS(CP_SLOT_USE_NONE);
static const cp_field_desc_t q_handles[] = QUEUE_FIELDS(CP_SLOT_USE_HANDLES);
static const cp_field_desc_t q_native[] = QUEUE_FIELDS(CP_SLOT_USE_NATIVE);
static const cp_field_desc_t q_bad_use[] = QUEUE_FIELDS(7);
static DESC(q_unit_none, "q", struct c_q, struct w_q, q_none);
static DESC(q_unit_handles, "q", struct c_q, struct w_q, q_handles);
static DESC(q_unit_native, "q", struct c_q, struct w_q, q_native);
static DESC(q_malformed, "q2", struct c_q, struct w_q, q_bad_use);

/* A "derived" queue that opens with the queue's fields: its tail is the
 * same memory where code hands it to the queue's functions. */
struct w_qc {
  struct w_node *head;
  struct w_node **tail;
  long n;
};
struct c_qc {
  cp_handle_t head;
  uint32_t pad;
  void *tail;
  long n;
};
static const cp_field_desc_t qc_native[] = {
    FIELD("head", struct c_qc, struct w_qc, head, CP_FIELD_HANDLE, 1, 0,
          &node_desc),
    FIELD("tail", struct c_qc, struct w_qc, tail, CP_FIELD_SLOT, 1,
          CP_SLOT_USE_NATIVE, NULL),
    FIELD("n", struct c_qc, struct w_qc, n, CP_FIELD_BYTES, 1, 8, NULL)};
static DESC(qc_unit_native, "qcounted", struct c_qc, struct w_qc, qc_native);

static void test_slot_field_uses(void **state) {
  (void)state;
  /* Units that do not read the field agree with either kind of reader. */
  cp_type_t *t = cp__type_resolve(&q_unit_none);
  assert_ptr_equal(cp__type_resolve(&q_unit_handles), t);
  expect_fatal(resolve_other, &q_unit_native,
               "field 'tail' of 'q' holds addresses of compact-pointer fields "
               "(`&p->next`) in one translation unit and is read as a plain "
               "pointer in another");
  expect_fatal(resolve_other, &q_malformed,
               "malformed slot-pointer field 'tail'");
  expect_fatal(resolve_other, &qc_unit_native,
               "field 'tail' of 'qcounted' (or of 'q', which opens with the "
               "same fields) holds addresses of compact-pointer fields");
}

/* A flexible array member of compact pointers counts its room in native
 * pointers: an element size of anything else is malformed. */
struct w_fx {
  long n;
  struct w_node *kids[];
};
struct c_fx {
  long n;
  cp_handle_t kids[];
};
static const cp_field_desc_t fx_bad_size[] = {
    FIELD("n", struct c_fx, struct w_fx, n, CP_FIELD_BYTES, 1, 8, NULL),
    FIELD("kids", struct c_fx, struct w_fx, kids, CP_FIELD_FLEX,
          CP_FIELD_HANDLE, sizeof(cp_handle_t), &node_desc)};
static DESC(fx_malformed, "fx", struct c_fx, struct w_fx, fx_bad_size);

static void test_mismatches_are_fatal(void **state) {
  (void)state;
  cp__type_resolve(&node_desc);
  expect_fatal(resolve_other, &node_other,
               "type 'node' has two different layouts in this program");
  expect_fatal(resolve_other, &bad_granule, "byte granules");
  expect_fatal(resolve_other, &bad_abi, "descriptor ABI 99");
  expect_fatal(resolve_other, &bad_build, "compiled in wide mode but other code");
  expect_fatal(resolve_other, &bad_field, "lies outside the object");
  expect_fatal(resolve_other, &fx_malformed,
               "flexible array member 'kids' has element kind 1, size 4");
}

/* Types past the mapping of type records (CP_FAST_TYPES) have their
 * records apart, their bins in a table of the heap's own that moves as
 * types come (with slabs in use: they point at their bins), and allocate
 * through the slow path: they work all the same, and the first types keep
 * their fast path. */
static void test_many_types(void **state) {
  (void)state;
  enum { N = CP_FAST_TYPES + 40 };
  static cp_type_desc_t descs[N];
  static char names[N][16];
  uint32_t before = cp__ntypes;
  void *p[N];
  for (uint32_t i = 0; i < N; i++) {
    descs[i] = node_desc;
    descs[i].rt = NULL;
    descs[i].module = NULL;
    snprintf(names[i], sizeof names[i], "many%u", i);
    descs[i].name = names[i];
    assert_non_null(cp__type_resolve(&descs[i]));
    p[i] = cp_alloc(&descs[i]); /* before the next type moves the table */
    *(int *)p[i] = (int)i;
  }
  assert_int_equal(cp__ntypes, before + N);
  for (uint32_t i = 0; i < N; i++) {
    cp_type_t *t = cp__type_peek(&descs[i]);
    /* In the mapping exactly when the fast path can find its bins. */
    assert_int_equal(cp__rt_bin(t) < cp__heap->nfast, t->id < CP_FAST_TYPES);
    assert_int_equal(*(int *)p[i], (int)i);
    assert_ptr_equal(cp__slab_of(&cp__compact_arena, p[i])->type, t);
    cp_free(p[i]);
    void *q = cp_alloc(&descs[i]);
    assert_ptr_equal(q, p[i]); /* the slot freed last comes back first */
    cp_free(q);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_module_registers_all_types),
      cmocka_unit_test(test_module_load_once),
      cmocka_unit_test(test_identical_descriptors_merge),
      cmocka_unit_test(test_mismatches_are_fatal),
      cmocka_unit_test(test_slot_field_uses),
      cmocka_unit_test(test_many_types),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
