/* handle_test.c - encode/decode, divide-free slot index, offset mapping. */
#define CP_TEST_DEFINE_TYPES
#include "internal.h"
#include "testtypes.h"
#include "testutil.h"

static void test_round_trip(void **state) {
  (void)state;
  void *p = cp_alloc(&node_desc); /* sets up the arena */
  assert_true(cp__reservation.ok);
  assert_int_equal(cp_encode(NULL), 0);
  assert_null(cp_decode(0));
  cp_handle_t h = cp_encode(p);
  assert_int_not_equal(h, 0);
  assert_ptr_equal(cp_decode(h), p);
  /* Zero-based: a handle is the address in granules, decode pure
   * arithmetic (no memory is touched). */
  assert_int_equal(h, (uintptr_t)p >> CP_GRANULE_SHIFT);
  assert_int_equal((uintptr_t)cp_decode(1), CP_GRANULE);
  assert_int_equal((uintptr_t)cp_decode(UINT32_MAX),
                   (uintptr_t)UINT32_MAX << CP_GRANULE_SHIFT);
  /* The last granule of the arena encodes; cp_encode checks against the
   * arena's extent. */
  const cp_reservation_t *r = &cp__reservation;
  char *last = r->lo + r->bytes - CP_GRANULE;
  assert_int_equal(cp_encode(last), (cp_handle_t)((uintptr_t)last >> CP_GRANULE_SHIFT));
  assert_true((uintptr_t)r->lo + r->bytes <= CP_ARENA_REACH);
  cp_free(p);
}

/* A pointer no handle can represent, stored into a compact field. */
static void encode_foreign(void *arg) {
  (void)cp_encode(arg);
}

static void test_encode_unrepresentable(void **state) {
  (void)state;
  cp_alloc(&node_desc);
  static int global;
  int local;
  void *heap = malloc(32768);
  /* malloc's memory, a pool carved out of it, globals and the stack all lie
   * far above the reach in a position-independent executable. */
  if ((uintptr_t)heap >= CP_ARENA_REACH) {
    expect_fatal(encode_foreign, heap, "is not in the compact arena");
    expect_fatal(encode_foreign, (char *)heap + 64, "pool or bump allocator");
  }
  if ((uintptr_t)&global >= CP_ARENA_REACH)
    expect_fatal(encode_foreign, &global, "is not in the compact arena");
  expect_fatal(encode_foreign, &local, "is not in the compact arena");
  expect_fatal(encode_foreign, (void *)(uintptr_t)CP_ARENA_REACH,
               "is not in the compact arena");
  char *p = cp_alloc(&tree_desc);
  if (CP_GRANULE > 2)
    expect_fatal(encode_foreign, p + 2, "is not aligned to the");
  else /* unscaled handles: every address below the reach has one */
    assert_ptr_equal(cp_decode(cp_encode(p + 2)), p + 2);
  free(heap);
  /* NULL, as a value the compiler cannot see; the last granule below the
   * reach, which round-trips. */
  void *volatile null = NULL;
  assert_int_equal(cp_encode(null), 0);
  void *top = (void *)(uintptr_t)(CP_ARENA_REACH - CP_GRANULE);
  assert_int_equal(cp_encode(top), UINT32_MAX);
  assert_ptr_equal(cp_decode(UINT32_MAX), top);
}

static void test_slot_index_exhaustive(void **state) {
  (void)state;
  cp_slab_t s = {0};
  for (uint32_t slot = 4; slot <= 4096; slot += 4) {
    s.slot = slot;
    s.magic = cp__slot_magic(slot);
    uint64_t limit = (uint64_t)1 << 20; /* largest slab offsets */
    /* Slots handed out up to three quarters of the range. */
    s.bump_end = (uint32_t)(limit / 4 * 3 / slot * slot);
    for (uint64_t off = 0; off < limit; off += (slot < 64 ? 1 : 7)) {
      bool handed = cp__slot_handed(&s, off);
      if (cp__slot_index(&s, off) != off / slot)
        fail_msg("slot %u offset %llu", slot, (unsigned long long)off);
      /* cp_free's interior-pointer check: the low half of the product */
      if (handed != (off % slot == 0 && off < s.bump_end))
        fail_msg("slot %u offset %llu: handed %d", slot,
                 (unsigned long long)off, handed);
    }
  }
  /* The top of the range the check holds for (offsets below 2^32; slab
   * offsets are far smaller), with slots up to 1 MiB; and offsets past
   * it, of an address in another region that the slab map folds onto
   * this slab's, which the bound turns away. */
  uint32_t big[] = {12, 24, 65540, 1u << 20};
  for (unsigned k = 0; k < sizeof big / sizeof big[0]; k++) {
    s.slot = big[k];
    s.magic = cp__slot_magic(big[k]);
    s.bump_end = (uint32_t)(UINT32_MAX / big[k] * big[k]);
    for (uint64_t off = ((uint64_t)1 << 32) - 3000000; off < ((uint64_t)1 << 32);
         off++) {
      if (cp__slot_handed(&s, off) != (off % big[k] == 0 && off < s.bump_end) ||
          cp__slot_index(&s, off) != off / big[k])
        fail_msg("slot %u offset %llu", big[k], (unsigned long long)off);
    }
    for (uint64_t off = (uint64_t)1 << 32; off < ((uint64_t)1 << 32) + 3000000;
         off++)
      if (cp__slot_handed(&s, off))
        fail_msg("slot %u offset %llu past 2^32 taken for a slot", big[k],
                 (unsigned long long)off);
  }
  /* Block offsets can be huge. */
  uint32_t sizes[] = {12, 24, 40, 48, 100, 65540};
  for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    s.slot = sizes[k];
    s.magic = cp__slot_magic(sizes[k]);
    for (uint64_t off = (uint64_t)1 << 34; off < ((uint64_t)1 << 34) + 100000; off += 3)
      assert_int_equal(cp__slot_index(&s, off), off / sizes[k]);
  }
}

static void test_map_offset(void **state) {
  (void)state;
  cp_type_t *t = cp__type_resolve(&holder_desc);
  /* d, p[0].a, p[0].b, p[1].a, p[1].b, tag */
  /* Offset 0 is the object itself (what a compact pointer names), even
   * though the compact layout put `d` there. */
  assert_int_equal(cp__map_offset(t, 0), 0);
  assert_int_equal(cp__map_offset(t, offsetof(struct c_holder, tag)),
                   offsetof(struct w_holder, tag));
  assert_int_equal(cp__map_offset(t, offsetof(struct c_holder, d) + 4),
                   offsetof(struct w_holder, d) + 4);
  assert_int_equal(cp__map_offset(t, offsetof(struct c_holder, p[1].b)),
                   offsetof(struct w_holder, p[1].b));
  assert_int_equal(cp__map_offset(t, offsetof(struct c_holder, tag) + 2),
                   offsetof(struct w_holder, tag) + 2);
  assert_int_equal(cp__map_offset(t, sizeof(struct c_holder)),
                   sizeof(struct w_holder));
  /* One past the end of an array member that padding follows (an end
   * pointer `h->tag + sizeof h->tag`) stays one past its end, both ways. */
  assert_int_equal(cp__map_offset(t, offsetof(struct c_holder, tag) + 3),
                   offsetof(struct w_holder, tag) + 3);
  assert_int_equal(cp__unmap_offset(t, offsetof(struct w_holder, tag) + 3),
                   offsetof(struct c_holder, tag) + 3);
  /* A pointer to a handle field that plain data ends right before (`&n->next`
   * after `int key`) is at the handle, not one past the plain data. */
  cp_type_t *n = cp__type_resolve(&node_desc);
  assert_int_equal(cp__map_offset(n, offsetof(struct c_node, next)),
                   offsetof(struct w_node, next));
  assert_int_equal(cp__unmap_offset(n, offsetof(struct w_node, next)),
                   offsetof(struct c_node, next));
  /* Every byte of every field round-trips through the inverse. */
  for (uint32_t i = 0; i < t->nops; i++) {
    uint32_t n = t->ops[i].kind == CP_FIELD_BYTES ? t->ops[i].len : t->ops[i].len * 8;
    for (uint32_t b = 0; b < n; b += t->ops[i].kind == CP_FIELD_BYTES ? 1 : 8) {
      uint64_t w = t->ops[i].to + b;
      if (cp__unmap_offset(t, w) != 0) /* 0 names the object, see above */
        assert_int_equal(cp__map_offset(t, cp__unmap_offset(t, w)), w);
    }
  }
}

static void test_copy_program(void **state) {
  (void)state;
  cp_type_t *t = cp__type_resolve(&holder_desc);
  /* d (bytes), 2 x pair {a, b} flattened, tag (bytes). */
  assert_int_equal(t->nops, 6);
  assert_int_equal(t->ops[0].kind, CP_FIELD_BYTES);
  assert_int_equal(t->ops[0].len, 8);
  assert_int_equal(t->ops[1].kind, CP_FIELD_HANDLE);
  assert_int_equal(t->ops[1].from, offsetof(struct c_holder, p[0].a));
  assert_int_equal(t->ops[1].to, offsetof(struct w_holder, p[0].a));
  assert_ptr_equal(t->ops[1].target, cp__type_resolve(&node_desc));
  assert_int_equal(t->ops[4].to, offsetof(struct w_holder, p[1].b));
  assert_int_equal(t->ops[5].len, 3);
  cp_type_t *g = cp__type_resolve(&graph_desc);
  assert_int_equal(g->ops[1].kind, CP_FIELD_HANDLE);
  assert_int_equal(g->ops[1].len, 4);
  assert_int_equal(g->compact_slot, sizeof(struct c_graph));
  assert_int_equal(cp__type_resolve(&node_desc)->compact_slot,
                   CP_GRANULE_SHIFT <= 2 ? 12 : 16);
}

static void decode_freed(void *arg) {
  (void)arg;
  void *p = cp_alloc(&node_desc);
  cp_alloc(&node_desc);
  cp_handle_t h = cp_encode(p);
  cp_free(p);
  cp_decode_checked(h);
}
static void decode_outside(void *arg) {
  (void)arg;
  cp_alloc(&node_desc);
  cp_decode_checked(0x7fffffff);
}
/* Handles made by arithmetic: cp_encode refuses a pointer inside a
 * granule (p + 20 with 8-byte granules). */
static cp_handle_t handle_at(const char *p) {
  return (cp_handle_t)((uintptr_t)p >> CP_GRANULE_SHIFT);
}
static void decode_padding(void *arg) {
  (void)arg;
  char *p = cp_alloc(&tree_desc);
  cp_decode_checked(cp_encode(p) + 1);
  cp_decode_checked(handle_at(p + 20)); /* inside tag: fine */
  cp_decode_checked(handle_at(p + 24) + 0x10000000u);
}

static void test_checked_decode(void **state) {
  (void)state;
  void *p = cp_alloc(&node_desc);
  assert_ptr_equal(cp_decode_checked(cp_encode(p)), p);
  assert_null(cp_decode_checked(0));
  cp_free(p);
  expect_fatal(decode_freed, NULL, "is free (use after free?)");
  expect_fatal(decode_outside, NULL, "no object lives there");
  expect_fatal(decode_padding, NULL, "bad handle");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip),
      cmocka_unit_test(test_encode_unrepresentable),
      cmocka_unit_test(test_slot_index_exhaustive),
      cmocka_unit_test(test_map_offset),
      cmocka_unit_test(test_copy_program),
      cmocka_unit_test(test_checked_decode),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
