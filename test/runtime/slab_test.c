/* slab_test.c - per-type slabs, free lists, blocks, errors.
 * Runs with COMPACTPTR_ARENA_LIMIT=2M (set by CTest). */
#define CP_TEST_DEFINE_TYPES
#include "internal.h"
#include "testtypes.h"
#include "testutil.h"

static cp_slab_t *slab_of(void *p) { return cp__slab_of(&cp__compact_arena, p); }

static void test_dense_slots(void **state) {
  (void)state;
  char *a = cp_alloc(&node_desc), *b = cp_alloc(&node_desc);
  uint32_t slot = cp__type_resolve(&node_desc)->compact_slot;
  assert_int_equal(slot, CP_GRANULE_SHIFT <= 2 ? 12 : 16);
  assert_int_equal(b - a, slot);
  assert_ptr_equal(slab_of(a), slab_of(b));
  assert_int_equal((uintptr_t)a % CP_GRANULE, 0);
  /* zeroed */
  for (uint32_t i = 0; i < slot; i++)
    assert_int_equal(a[i], 0);
  cp_free(a);
  char *c = cp_alloc(&node_desc);
  assert_ptr_equal(c, a); /* LIFO reuse of the freed slot */
  assert_true(cp__slab_is_valid(slab_of(c)));
  cp_free(b);
  cp_free(c);
}

static void test_churn_keeps_slabs_valid(void **state) {
  (void)state;
  uint64_t seed = 42;
  print_message("seed %llu\n", (unsigned long long)seed);
  enum { N = 20000 };
  static void *live[N];
  int n = 0;
  for (int step = 0; step < 200000; step++) {
    if (n < N && (n == 0 || rng_below(&seed, 3) != 0)) {
      live[n] = cp_alloc(&tree_desc);
      *(long *)live[n] = (long)(uintptr_t)live[n];
      n++;
    } else {
      int i = (int)rng_below(&seed, (uint32_t)n);
      assert_int_equal(*(long *)live[i], (long)(uintptr_t)live[i]);
      cp_free(live[i]);
      live[i] = live[--n];
    }
  }
  cp_type_t *t = cp__type_resolve(&tree_desc);
  uint64_t used = 0;
  for (cp_slab_t *s = t->all; s; s = s->next_all) {
    assert_true(cp__slab_is_valid(s));
    used += s->used;
  }
  assert_int_equal(used, (uint64_t)n);
  cp_stats_t st;
  cp_type_stats_t ts[8];
  cp_get_stats(&st, ts, 8);
  assert_int_equal(ts[t->id].live_objects, (uint64_t)n);
  while (n)
    cp_free(live[--n]);
  /* Empty slabs went back to the buddy, except one kept for reuse. */
  int slabs = 0;
  for (cp_slab_t *s = t->all; s; s = s->next_all)
    slabs++;
  assert_true(slabs <= 1);
  assert_true(cp__buddy_is_valid(&cp__compact_arena));
}

/* The live bitmap is taken where it is kept: under COMPACTPTR_DEBUG=1 from
 * the slab's creation, otherwise at its first sync (the switch, the
 * verifier), so a slab of a type with few objects costs no bitmap. */
static void test_live_bitmap_on_demand(void **state) {
  (void)state;
  char *a = cp_alloc(&graph_desc), *b = cp_alloc(&graph_desc);
  cp_slab_t *s = slab_of(a);
  assert_ptr_equal(slab_of(b), s);
  uint32_t ia = (uint32_t)((a - s->start) / s->slot);
  uint32_t ib = (uint32_t)((b - s->start) / s->slot);
  if (cp__debug) {
    assert_non_null(s->live);
    assert_true(cp__slot_is_live(s, ia));
  } else {
    assert_null(s->live);
    assert_false(cp__slot_is_live(s, ia)); /* no bitmap reads as none */
  }
  cp_free(b);
  cp__lock();
  cp__slab_sync(s);
  cp__unlock();
  assert_non_null(s->live);
  assert_true(cp__slot_is_live(s, ia));
  assert_false(cp__slot_is_live(s, ib));
  assert_true(cp__slab_is_valid(s));
  cp_free(a);
}

static void test_arrays(void **state) {
  (void)state;
  /* Small arrays share a slab of their size class: no page each. */
  struct c_node *a3 = cp_alloc_array(&node_desc, 3), *b3 = cp_alloc_array(&node_desc, 3);
  assert_int_equal(cp_object_count(a3), 4);
  assert_ptr_equal(slab_of(a3), slab_of(b3));
  assert_int_equal((char *)b3 - (char *)a3, 4 * sizeof(struct c_node));
  cp_free(a3);
  cp_free(b3);
  struct c_node *arr = cp_alloc_array(&node_desc, 1000);
  assert_int_equal(cp_object_count(arr), 1000);
  assert_int_equal(cp_object_count(cp_alloc(&node_desc)), 1);
  for (int i = 0; i < 1000; i++) {
    assert_int_equal(arr[i].key, 0);
    arr[i].key = i;
  }
  struct c_node *big = cp_realloc_array(&node_desc, arr, 3000);
  assert_int_equal(cp_object_count(big), 3000);
  for (int i = 0; i < 1000; i++)
    assert_int_equal(big[i].key, i);
  assert_int_equal(big[2999].key, 0);
  struct c_node *small = cp_realloc_array(&node_desc, big, 10);
  for (int i = 0; i < 10; i++)
    assert_int_equal(small[i].key, i);
  assert_null(cp_realloc_array(&node_desc, small, 0));
  /* large single objects get a block of their own */
  void *one = cp_alloc_array(&node_desc, 1);
  assert_int_equal(cp_object_count(one), 1);
  cp_free(one);
}

static void test_try_alloc_exhaustion(void **state) {
  (void)state;
  assert_null(cp_try_alloc_array(&node_desc, (size_t)1 << 30));
  assert_null(cp_try_alloc_array(&node_desc, SIZE_MAX / 2));
  void *p = cp_try_alloc(&node_desc);
  assert_non_null(p);
  cp_free(p);
}

static void double_free(void *arg) {
  (void)arg;
  void *p = cp_alloc(&node_desc);
  cp_alloc(&node_desc);
  cp_free(p);
  cp_free(p);
  for (int i = 0; i < 3; i++)
    cp_alloc(&node_desc);
}
static void foreign_free(void *arg) {
  (void)arg;
  int x;
  cp_alloc(&node_desc);
  cp_free(&x);
}
static void interior_free(void *arg) {
  (void)arg;
  char *p = cp_alloc(&tree_desc);
  cp_free(p + 8);
  for (int i = 0; i < 3; i++)
    cp_alloc(&tree_desc);
}
static void array_interior_free(void *arg) {
  (void)arg;
  struct c_node *a = cp_alloc_array(&node_desc, 10);
  cp_free(&a[3]);
  for (int i = 0; i < 3; i++)
    cp_alloc_array(&node_desc, 10);
}
/* A slot of a live slab that was never handed out (at or past bump): not
 * put on the free list, from which it would be handed out once, and then
 * again when the bump reaches it. */
static void unhanded_free(void *arg) {
  (void)arg;
  cp_slab_t *s;
  do /* until a slab that has not been bumped to its end */
    s = slab_of(cp_alloc(&tree_desc));
  while (s->bump == s->nslots);
  cp_free(s->start + (size_t)s->bump * s->slot);
}
/* A double free that empties a slab: caught before the run goes back. */
static void double_free_empties(void *arg) {
  (void)arg;
  enum { N = 8000 };
  static void *ps[N];
  for (int i = 0; i < N; i++)
    ps[i] = cp_alloc(&holder_desc); /* a type no other test uses */
  uint32_t n = slab_of(ps[0])->nslots;
  assert_ptr_equal(slab_of(ps[n - 1]), slab_of(ps[0]));
  cp_free(ps[0]);
  cp_free(ps[0]);
  for (uint32_t i = 2; i < n; i++) /* ps[1] stays live */
    cp_free(ps[i]);
}
/* A write into a freed object, then the rest of its slab freed: the slab
 * counts nothing live but a slot lacks its free mark, so it is not given
 * back (a double free that overwrote the object first looks the same). */
static void write_after_free_empties(void *arg) {
  (void)arg;
  enum { N = 8000 };
  static void *ps[N];
  for (int i = 0; i < N; i++)
    ps[i] = cp_alloc(&holder_desc);
  uint32_t n = slab_of(ps[0])->nslots;
  assert_ptr_equal(slab_of(ps[n - 1]), slab_of(ps[0]));
  cp_free(ps[0]);
  memset(ps[0], 0x5a, 8);
  for (uint32_t i = 1; i < n; i++)
    cp_free(ps[i]);
}
/* 8-byte slots carry a free mark too. */
static void small_double_free(void *arg) {
  (void)arg;
  void *p = cp_alloc(&pair_desc);
  cp_alloc(&pair_desc);
  cp_free(p);
  cp_free(p);
  for (int i = 0; i < 3; i++)
    cp_alloc(&pair_desc);
}
/* An address whose 64 KiB region folds onto a live slab's entry of the slab
 * map (the map is indexed modulo its size), outside the arena: foreign,
 * although the map's entry names a slab and the offset lands on a slot
 * boundary of it. */
static void aliased_free(void *arg) {
  (void)arg;
  char *p = cp_alloc(&node_desc);
  uint64_t span = (CP_OWN_GET(cp__fast.slabmask) + 1) << CP_SLAB_MIN_SHIFT;
  cp_free(p + span);
}
static void exhaust(void *arg) {
  (void)arg;
  for (;;)
    cp_alloc_array(&node_desc, 10000);
}

static void test_errors(void **state) {
  (void)state;
  expect_bad_free(double_free, NULL, "double free of");
  expect_fatal(foreign_free, NULL, "not an object allocated by compactptr");
  expect_fatal(interior_free, NULL, "not the start of a 'tree' object");
  expect_fatal(array_interior_free, NULL, "not the start of a 'node' array");
  expect_fatal(unhanded_free, NULL, "no 'tree' object was handed out there");
  expect_fatal(double_free_empties, NULL,
               cp__debug ? "double free of" : "an object was freed twice");
  if (!cp__debug) /* debug mode keeps no marks: the bitmap says free */
    expect_fatal(write_after_free_empties, NULL,
                 "holds a slot without the free mark");
  expect_bad_free(small_double_free, NULL, "double free of");
  expect_fatal(aliased_free, NULL, "not an object allocated by compactptr");
  expect_fatal(exhaust, NULL, "the compact arena is exhausted");
}

/* Statistics count frees off the slabs: the live count is exact at every
 * read, the peak is the largest live count seen at a read or as the
 * type's slabs grew. */
static uint64_t holder_stats(uint64_t *peak) {
  cp_type_stats_t ts[8];
  cp_stats_t s;
  uint32_t n = cp_get_stats(&s, ts, 8);
  for (uint32_t i = 0; i < n && i < 8; i++)
    if (!strcmp(ts[i].name, "holder")) {
      *peak = ts[i].peak_objects;
      return ts[i].live_objects;
    }
  fail();
  return 0;
}
static void test_peak(void **state) {
  (void)state;
  enum { N = 12000 };
  static void *ps[N];
  uint64_t peak;
  for (int i = 0; i < N; i++)
    ps[i] = cp_alloc(&holder_desc);
  uint32_t per = slab_of(ps[0])->nslots;
  assert_true(N / per >= 4); /* several slabs */
  for (int i = 0; i < N; i++)
    cp_free(ps[i]);
  assert_int_equal(holder_stats(&peak), 0);
  /* Counted when the last slabs were taken: all but the last slab or two
   * (each count after the first eight slabs waits an eighth of them). */
  assert_true(peak <= N && peak >= N - 2 * (uint64_t)per);
  for (int i = 0; i < N / 2; i++)
    ps[i] = cp_alloc(&holder_desc);
  assert_int_equal(holder_stats(&peak), N / 2);
  assert_true(peak >= N - 2 * (uint64_t)per);
  for (int i = 0; i < N; i++)
    ps[i] = i < N / 2 ? ps[i] : cp_alloc(&holder_desc);
  assert_int_equal(holder_stats(&peak), N);
  assert_int_equal(peak, N); /* a read counts */
  for (int i = 0; i < N; i++)
    cp_free(ps[i]);
  assert_int_equal(holder_stats(&peak), 0);
  assert_int_equal(peak, N);
}

static void test_stats(void **state) {
  (void)state;
  cp_type_stats_t ts[8];
  cp_stats_t s;
  void *p = cp_alloc(&graph_desc);
  uint32_t n = cp_get_stats(&s, ts, 8);
  assert_true(n >= 3);
  assert_int_equal(s.wide, 0);
  assert_int_equal(s.arena_reach, 2u << 20);
  int found = 0;
  for (uint32_t i = 0; i < n; i++)
    if (!strcmp(ts[i].name, "graph")) {
      found = 1;
      assert_int_equal(ts[i].live_objects, 1);
      assert_int_equal(ts[i].compact_size, sizeof(struct c_graph));
      assert_int_equal(ts[i].wide_size, sizeof(struct w_graph));
    }
  assert_true(found);
  cp_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dense_slots),
      cmocka_unit_test(test_churn_keeps_slabs_valid),
      cmocka_unit_test(test_live_bitmap_on_demand),
      cmocka_unit_test(test_arrays),
      cmocka_unit_test(test_try_alloc_exhaustion),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_stats),
      cmocka_unit_test(test_peak),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
