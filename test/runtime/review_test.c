/*
 * review_test.c - edge cases found in review: block and slab ends, the
 * switch's translation cache, frees and reallocs of pointers that are not
 * live objects, types whose wide size is not a multiple of 4, dangling and
 * one-past-the-end roots, malformed nested descriptors.  One case per
 * process (most cases switch); CTest runs each under COMPACTPTR_VERIFY=1.
 *   usage: review_test CASE
 */
#define CP_TEST_DEFINE_TYPES
#include "internal.h"
#include "testtypes.h"
#include "testutil.h"

#include <sys/mman.h>

/* quad { int key; quad *next; int a, b; }   compact 16, wide 24 */
struct w_quad { int key; struct w_quad *next; int a, b; };
struct c_quad { int key; cp_handle_t next; int a, b; };
/* tri { char c[3]; }        compact 4 (a granule, at least 4 bytes), wide 3 */
struct w_tri { char c[3]; };
struct c_tri { char c[3]; char pad[CP_GRANULE > 4 ? CP_GRANULE - 3 : 1]; };
/* odd { short s; char c[4]; }               compact 8, wide 6 */
struct w_odd { short s; char c[4]; };
struct c_odd { short s; char c[4]; short pad; };
/* k1016: 1016 plain bytes, 64 slots per 64 KiB slab and a 512-byte tail */
struct k1016 { char b[1016]; };

extern cp_type_desc_t quad_desc, tri_desc, odd_desc, k1016_desc;
static const cp_field_desc_t quad_fields[] = {
    FIELD("key", struct c_quad, struct w_quad, key, CP_FIELD_BYTES, 1, 4, NULL),
    FIELD("next", struct c_quad, struct w_quad, next, CP_FIELD_HANDLE, 1, 0, &quad_desc),
    FIELD("a", struct c_quad, struct w_quad, a, CP_FIELD_BYTES, 1, 4, NULL),
    FIELD("b", struct c_quad, struct w_quad, b, CP_FIELD_BYTES, 1, 4, NULL),
};
static const cp_field_desc_t tri_fields[] = {
    FIELD("c", struct c_tri, struct w_tri, c, CP_FIELD_BYTES, 1, 3, NULL),
};
static const cp_field_desc_t odd_fields[] = {
    FIELD("s", struct c_odd, struct w_odd, s, CP_FIELD_BYTES, 1, 2, NULL),
    FIELD("c", struct c_odd, struct w_odd, c, CP_FIELD_BYTES, 1, 4, NULL),
};
static const cp_field_desc_t k1016_fields[] = {
    FIELD("b", struct k1016, struct k1016, b, CP_FIELD_BYTES, 1, 1016, NULL),
};
DESC(quad_desc, "quad", struct c_quad, struct w_quad, quad_fields);
DESC(tri_desc, "tri", struct c_tri, struct w_tri, tri_fields);
DESC(odd_desc, "odd", struct c_odd, struct w_odd, odd_fields);
DESC(k1016_desc, "k1016", struct k1016, struct k1016, k1016_fields);
CP_REGISTER_TYPE(quad_desc);
CP_REGISTER_TYPE(tri_desc);
CP_REGISTER_TYPE(odd_desc);
CP_REGISTER_TYPE(k1016_desc);

static cp_slab_t *slab_of(const void *p) {
  return cp__slab_of(&cp__compact_arena, p);
}

/* ---- the switch's translation cache must not reach past a block ---------
 * A block of 2730 trees (65520 bytes) fills a 16-page run but for 16 bytes;
 * a tree slab starts right after it.  A handle from the block to the slab's
 * first tree used to be translated relative to the block (as its element
 * 2730, at field offset 16) when the cache held the block, because the
 * cache's span was count + 1 elements, past the end of the run. */
static void case_xlate_past_block(void **state) {
  (void)state;
  static void *blk, *first;
  cp_root_register(&blk, 1);
  cp_root_register(&first, 1);
  struct c_tree *a = cp_alloc_array(&tree_desc, 2730);
  struct c_tree *s0 = cp_alloc(&tree_desc);
  assert_int_equal(slab_of(a)->kind, CP_BLOCK);
  assert_ptr_equal((char *)s0, (char *)a + 65536); /* the precondition */
  blk = a;
  first = s0;
  s0->val = 4242;
  a[0].left = cp_encode(&a[1]); /* the cache now holds the block... */
  a[1].left = cp_encode(s0);    /* ...and this handle is past its end */
  a[1].val = 1;
  cp_switch_to_wide();
  struct w_tree *w = blk;
  assert_ptr_equal(w[0].left, &w[1]);
  assert_ptr_equal(w[1].left, first);
  assert_int_equal(w[1].left->val, 4242);
}

/* ---- one past the end of a block of exactly 64 KiB ---------------------- */
static void case_root_past_exact_block(void **state) {
  (void)state;
  static void *arr, *end;
  cp_root_register(&arr, 1);
  cp_root_register(&end, 1);
  struct c_quad *q = cp_alloc_array(&quad_desc, 4096); /* 64 KiB exactly */
  assert_int_equal(slab_of(q)->kind, CP_BLOCK);
  /* The end used to be the next run's first byte (free here, so the root
   * was left pointing into the released arena); blocks now keep room. */
  assert_ptr_equal(slab_of(q + 4096), slab_of(q));
  for (int i = 0; i < 4096; i++)
    q[i].key = i;
  arr = q;
  end = q + 4096;
  cp_switch_to_wide();
  struct w_quad *w = arr;
  assert_ptr_equal(end, w + 4096);
  int n = 0;
  for (struct w_quad *p = w; p != (struct w_quad *)end; p++)
    assert_int_equal(p->key, n++);
  assert_int_equal(n, 4096);
}

/* ---- one past the end of the last array of a slab -----------------------
 * quad arrays of 512 are 8 KiB slots, which divide a 128 KiB run: the slab
 * used to fill its run exactly, so the end of its last array was the next
 * run's first byte (free here, so the root was left pointing into the
 * released arena).  Slabs now keep a gap after their last slot. */
static void case_root_past_exact_slab(void **state) {
  (void)state;
  static void *last, *end;
  cp_root_register(&last, 1);
  cp_root_register(&end, 1);
  struct c_quad *q = cp_alloc_array(&quad_desc, 512);
  cp_slab_t *s = slab_of(q);
  assert_int_equal(s->kind, CP_SLAB);
  for (uint32_t i = 1; i < s->nslots; i++)
    q = cp_alloc_array(&quad_desc, 512);
  assert_ptr_equal(slab_of(q), s);
  assert_ptr_equal(q, s->start + (size_t)(s->nslots - 1) * s->slot);
  assert_ptr_equal(slab_of(q + 512), s); /* the end is in the slab's run */
  q[511].key = 511;
  last = q;
  end = q + 512;
  cp_switch_to_wide();
  struct w_quad *w = last;
  assert_ptr_equal(end, w + 512);
  assert_int_equal(w[511].key, 511);
}

/* ---- a handle one past the end of an array of 2^k elements -------------
 * The next slot of the class slab was never used: the verifier must accept
 * the handle (as it does for blocks), and the switch keep it one past the
 * end. */
static void case_handle_past_slab_array(void **state) {
  (void)state;
  static void *holder;
  cp_root_register(&holder, 1);
  struct c_node *h = cp_alloc(&node_desc);
  struct c_node *arr = cp_alloc_array(&node_desc, 4);
  holder = h;
  h->next = cp_encode(arr);
  h->prev = cp_encode(arr + 4); /* end */
  for (int i = 0; i < 4; i++)
    arr[i].key = 10 + i;
  cp_switch_to_wide();
  struct w_node *w = holder;
  assert_ptr_equal(w->prev, w->next + 4);
  int n = 0;
  for (struct w_node *p = w->next; p != w->prev; p++)
    assert_int_equal(p->key, 10 + n++);
  assert_int_equal(n, 4);
}

/* ---- a dangling root (into a released slab) does not fail VERIFY ------- */
static void case_dangling_root(void **state) {
  (void)state;
  static void *dangling, *keep;
  cp_root_register(&dangling, 1);
  cp_root_register(&keep, 1);
  /* k1016: 64 per slab; the fifth slab stays partial, so an emptied slab
   * is not the class's spare and goes back to the buddy. */
  static void *objs[257];
  for (int i = 0; i < 257; i++)
    objs[i] = cp_alloc(&k1016_desc);
  keep = objs[256];
  dangling = objs[70]; /* in the second slab */
  cp_slab_t *s = slab_of(dangling);
  for (int i = 64; i < 128; i++)
    cp_free(objs[i]); /* the second slab empties and is released */
  assert_null(slab_of(dangling));
  (void)s;
  void *before = dangling;
  cp_switch_to_wide();
  assert_ptr_equal(dangling, before); /* left as is */
  assert_true(cp__arena_contains(&cp__wide_arena, keep));
}

/* ---- types whose wide size is not a multiple of 4 ----------------------
 * Wide arrays must have the C stride (sizeof), both after the switch and
 * for arrays allocated in wide mode. */
static void case_odd_wide_stride(void **state) {
  (void)state;
  static void *tris, *odds, *one;
  cp_root_register(&tris, 1);
  cp_root_register(&odds, 1);
  cp_root_register(&one, 1);
  struct c_tri *t = cp_alloc_array(&tri_desc, 5);
  struct c_odd *o = cp_alloc_array(&odd_desc, 3);
  struct c_tri *t1 = cp_alloc(&tri_desc);
  for (int i = 0; i < 5; i++)
    memcpy(t[i].c, (char[3]){(char)('a' + i), (char)('A' + i), (char)i}, 3);
  for (int i = 0; i < 3; i++) {
    o[i].s = (short)(100 + i);
    memcpy(o[i].c, "wxyz", 4);
  }
  memcpy(t1->c, "xyz", 3);
  tris = t;
  odds = o;
  one = t1;
  cp_switch_to_wide();
  struct w_tri *wt = tris;
  for (int i = 0; i < 5; i++) {
    assert_int_equal(wt[i].c[0], 'a' + i);
    assert_int_equal(wt[i].c[1], 'A' + i);
    assert_int_equal(wt[i].c[2], i);
  }
  struct w_odd *wo = odds;
  for (int i = 0; i < 3; i++) {
    assert_int_equal(wo[i].s, 100 + i);
    assert_memory_equal(wo[i].c, "wxyz", 4);
  }
  assert_memory_equal(((struct w_tri *)one)->c, "xyz", 3);
  /* wide-mode arrays and single objects, with churn over the free lists */
  void *ps[64];
  for (int r = 0; r < 3; r++) {
    for (int i = 0; i < 64; i++) {
      size_t n = (size_t)(i % 9) + 1;
      struct w_tri *a = cp_alloc_array(&tri_desc, n);
      assert_true(cp_object_count(a) >= n);
      /* An interior address is no object: 0, as documented. */
      assert_int_equal(cp_object_count((char *)a + 1), 0);
      for (size_t k = 0; k < n; k++)
        memset(a[k].c, (int)(i + k), 3);
      ps[i] = a;
    }
    for (int i = 0; i < 64; i++) {
      struct w_tri *a = ps[i];
      size_t n = (size_t)(i % 9) + 1;
      for (size_t k = 0; k < n; k++)
        assert_int_equal(a[k].c[2], (char)(i + k));
      cp_free(a);
    }
  }
  struct w_odd *big = cp_alloc_array(&odd_desc, 5000); /* a block */
  big[4999].s = 7;
  assert_int_equal(cp_object_count(big), 5000);
  cp_free(big);
}

/* ---- frees of addresses that no object was allocated at ----------------
 * k1016 slabs hold 64 slots and a 256-byte tail: a free in the tail used to
 * read past the live bitmap (ASan: heap-buffer-overflow). */
static void free_in_tail(void *arg) {
  (void)arg;
  char *p = cp_alloc(&k1016_desc);
  cp_slab_t *s = slab_of(p);
  assert_int_equal(s->nslots, 64);
  cp_free(s->start + 64 * 1016);
  for (int i = 0; i < 3; i++)
    cp_alloc(&k1016_desc);
}
static void free_never_allocated(void *arg) {
  (void)arg;
  char *p = cp_alloc(&node_desc);
  cp_free(p + 5 * sizeof(struct c_node));
  for (int i = 0; i < 10; i++)
    cp_alloc(&node_desc);
}
static void realloc_freed(void *arg) {
  (void)arg;
  void *p = cp_alloc(&node_desc);
  cp_alloc(&node_desc);
  cp_free(p);
  cp_realloc_array(&node_desc, p, 1); /* used to return the freed slot */
}
static void realloc_freed_array(void *arg) {
  (void)arg;
  void *p = cp_alloc_array(&node_desc, 8);
  cp_alloc_array(&node_desc, 8);
  cp_free(p);
  cp_realloc_array(&node_desc, p, 5);
}
static void realloc_in_tail(void *arg) {
  (void)arg;
  char *p = cp_alloc(&k1016_desc);
  cp_realloc_array(&k1016_desc, slab_of(p)->start + 64 * 1016, 1);
}
static void realloc_block_interior(void *arg) {
  (void)arg;
  struct c_node *a = cp_alloc_array(&node_desc, 5000);
  cp_realloc_array(&node_desc, a + 3, 10);
}
static void realloc_wrong_type(void *arg) {
  (void)arg;
  void *p = cp_alloc(&node_desc);
  cp_realloc_array(&tree_desc, p, 3);
}
static void free_compact_after_switch(void *arg) {
  (void)arg;
  void *p = cp_alloc(&node_desc);
  cp_switch_to_wide();
  cp_free(p);
}

static void case_bad_frees(void **state) {
  (void)state;
  expect_fatal(free_in_tail, NULL, "never allocated");
  expect_bad_free(free_never_allocated, NULL, "never allocated");
  expect_fatal(realloc_freed, NULL, "realloc of");
  expect_fatal(realloc_freed_array, NULL, "already free");
  expect_fatal(realloc_in_tail, NULL, "never allocated");
  expect_fatal(realloc_block_interior, NULL, "not the start of a 'node' array");
  expect_fatal(realloc_wrong_type, NULL, "the object is a 'node'");
  expect_fatal(free_compact_after_switch, NULL, "not an object allocated");
  cp_free(NULL);
  assert_null(cp_realloc_array(&node_desc, NULL, 0));
}

/* ---- realloc across classes and blocks --------------------------------- */
/* Is the page holding p resident? */
static bool resident(const void *p) {
  unsigned char v = 0;
  uintptr_t page = (uintptr_t)p & ~(uintptr_t)4095;
  assert_int_equal(mincore((void *)page, 4096, &v), 0);
  return v & 1;
}

/* A block of several commit chunks grown by realloc: its whole chunks move
 * as pages, so those the program never touched stay untouched (a calloc'd
 * array barely used, grown, became resident whole when copied), the data
 * and the zeroed new elements are there, and the old run, allocated
 * again, reads as zero.  In both modes. */
static void case_realloc_moves_pages(void **state) {
  (void)state;
  static void *keep;
  cp_root_register(&keep, 1);
  const size_t n = (size_t)1 << 19, stride = obj_stride(&node_desc);
  for (int round = 0; round < 2; round++) {
    char *p = cp_alloc_array(&node_desc, n);
    keep = p;
    *(int *)p = 7;
    *(int *)(p + (n - 1) * stride) = 9;
    char *q = cp_realloc_array(&node_desc, p, 2 * n);
    keep = q;
    assert_int_equal(*(int *)q, 7);
    assert_int_equal(*(int *)(q + (n - 1) * stride), 9);
    /* Past the first chunk and short of the last element: never touched. */
    char *untouched = q + ((size_t)3 << 20);
    assert_true(untouched < q + (n - 1) * stride - 4096);
    assert_false(resident(untouched));
    assert_int_equal(*(int *)untouched, 0);
    for (size_t k = n; k < 2 * n; k += n / 4)
      assert_int_equal(*(int *)(q + k * stride), 0);
    /* The old run again, or another: zero where the old data was. */
    char *r = cp_alloc_array(&node_desc, n);
    assert_int_equal(*(int *)r, 0);
    assert_int_equal(*(int *)(r + (n - 1) * stride), 0);
    cp_free(r);
    cp_free(q);
    keep = NULL;
    if (round == 0)
      cp_switch_to_wide();
  }
}

static void case_realloc_classes(void **state) {
  (void)state;
  static void *keep;
  cp_root_register(&keep, 1);
  uint64_t seed = 5;
  for (int round = 0; round < 2; round++) {
    struct c_node *p = cp_alloc(&node_desc); /* a single object */
    size_t n = 1;
    NODE_KEY(p) = 1000;
    for (int step = 0; step < 300; step++) {
      size_t m;
      switch (rng_below(&seed, 4)) {
      case 0: m = 1 + rng_below(&seed, 8); break;
      case 1: m = (size_t)1 << rng_below(&seed, 13); break;
      case 2: m = 1 + rng_below(&seed, 6000); break;
      default: m = n + (rng_below(&seed, 2) ? 1 : (size_t)-1); break;
      }
      if (m == 0)
        m = 1;
      void *q = cp_realloc_array(&node_desc, p, m);
      assert_true(cp_object_count(q) >= m);
      size_t keepn = n < m ? n : m;
      char *base = q;
      size_t stride = obj_stride(&node_desc);
      assert_int_equal(*(int *)base, 1000);
      for (size_t k = 1; k < keepn; k++)
        assert_int_equal(*(int *)(base + k * stride), (int)k);
      for (size_t k = keepn; k < m; k++) {
        assert_int_equal(*(int *)(base + k * stride), 0); /* zeroed */
        *(int *)(base + k * stride) = (int)k;
      }
      p = q;
      n = m;
      keep = p;
    }
    if (round == 0) {
      cp_free(p);
      cp_switch_to_wide();
    }
  }
}

/* ---- malformed descriptors: a clear message, never a crash -------------- */
static cp_field_desc_t bad_inner_fields[] = {
    /* lies outside the 8-byte inner type */
    {"x", 4, 4, CP_FIELD_BYTES, 1, 64, NULL},
};
static cp_type_desc_t bad_inner = {CP_ABI_VERSION, CP_GRANULE_SHIFT,
                                   CP_BUILD_SWITCHABLE, "bad_inner", 8, 4, 8, 4,
                                   1, bad_inner_fields, NULL, NULL};
static cp_field_desc_t outer_fields[] = {
    {"in", 0, 0, CP_FIELD_STRUCT, 1, 0, &bad_inner},
};
static cp_type_desc_t outer = {CP_ABI_VERSION, CP_GRANULE_SHIFT,
                               CP_BUILD_SWITCHABLE, "outer", 8, 4, 8, 4, 1,
                               outer_fields, NULL, NULL};
static void alloc_outer(void *arg) {
  (void)arg;
  cp_alloc(&outer);
}
static cp_type_desc_t no_fields = {CP_ABI_VERSION, CP_GRANULE_SHIFT,
                                   CP_BUILD_SWITCHABLE, "nofields", 8, 4, 8, 4,
                                   2, NULL, NULL, NULL};
static void alloc_no_fields(void *arg) {
  (void)arg;
  cp_alloc(&no_fields);
}
static cp_type_desc_t misfit = {CP_ABI_VERSION, CP_GRANULE_SHIFT,
                                CP_BUILD_SWITCHABLE, "misfit", 12, 8, 12, 8,
                                0, NULL, NULL, NULL};
static void alloc_misfit(void *arg) {
  (void)arg;
  cp_alloc(&misfit);
}
static cp_field_desc_t unnamed_fields[] = {
    {NULL, 0, 0, 7, 1, 0, NULL},
};
static cp_type_desc_t unnamed_kind = {CP_ABI_VERSION, CP_GRANULE_SHIFT,
                                      CP_BUILD_SWITCHABLE, "unnamedkind", 8, 4,
                                      8, 4, 1, unnamed_fields, NULL, NULL};
static void alloc_unnamed_kind(void *arg) {
  (void)arg;
  cp_alloc(&unnamed_kind);
}

static cp_field_desc_t skew_fields[] = {
    {"h", 2, 4, CP_FIELD_HANDLE, 1, 0, NULL},
};
static cp_type_desc_t skew = {CP_ABI_VERSION, CP_GRANULE_SHIFT,
                              CP_BUILD_SWITCHABLE, "skew", 8, 4, 16, 8, 1,
                              skew_fields, NULL, NULL};
static void alloc_skew(void *arg) {
  (void)arg;
  cp_alloc(&skew);
}
static cp_type_desc_t granule40 = {CP_ABI_VERSION, 40, CP_BUILD_SWITCHABLE,
                                   "g40", 8, 4, 8, 4, 0, NULL, NULL, NULL};
static void alloc_granule40(void *arg) {
  (void)arg;
  cp_alloc(&granule40);
}

static void case_malformed_descriptors(void **state) {
  (void)state;
  expect_fatal(alloc_outer, NULL, "type 'bad_inner': field 'x' lies outside");
  expect_fatal(alloc_no_fields, NULL, "type 'nofields': malformed descriptor");
  expect_fatal(alloc_misfit, NULL, "type 'misfit': malformed descriptor");
  expect_fatal(alloc_unnamed_kind, NULL, "unknown kind 7");
  expect_fatal(alloc_skew, NULL, "handle field 'h' at offset 2/4 is not aligned");
  expect_fatal(alloc_granule40, NULL, "type 'g40' was compiled for");
}

/* ---- COMPACTPTR_HIGH_WATER=100 still makes the switch pending -----------
 * Needs COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_HIGH_WATER=100.  The mark used
 * to be 100% of all pages, page 0 included, which 16-page slab runs never
 * reach: the arena ran out with no switch pending, in a loop that polls. */
static void case_high_water_100(void **state) {
  (void)state;
  static void *head;
  cp_root_register(&head, 1);
  long n = 0;
  while (cp_is_compact()) {
    void *p = cp_alloc(&node_desc);
    NODE_KEY(p) = (int)n++;
    SET_NEXT(p, head);
    head = p;
    cp_safepoint();
  }
  assert_true(n > 50000);
  for (void *p = head; p; p = NODE_NEXT(p))
    assert_int_equal(NODE_KEY(p), (int)--n);
  assert_int_equal(n, 0);
}

/* ---- a try allocation that finds the arena exhausted makes the switch
 * pending; the next safepoint switches and the retry succeeds.  Needs
 * COMPACTPTR_ARENA_LIMIT=1M. */
static void case_try_exhausted_pending(void **state) {
  (void)state;
  static void *keep;
  cp_root_register(&keep, 1);
  keep = cp_alloc(&node_desc);
  NODE_KEY(keep) = 9;
  assert_false(cp__switch_pending);
  assert_null(cp_try_alloc_array(&node_desc, 300000)); /* 3.6 MB */
  assert_true(cp__buddy_is_valid(&cp__compact_arena));
  assert_true(cp__switch_pending);
  cp_safepoint();
  assert_false(cp_is_compact());
  struct w_node *big = cp_try_alloc_array(&node_desc, 300000);
  assert_non_null(big);
  big[299999].key = 1;
  assert_int_equal(NODE_KEY(keep), 9);
}

/* ---- a try realloc that needs a new array the arena cannot hold returns
 * NULL and leaves the old array as it was (the caller still owns it), with
 * the switch pending; after the switch it moves in wide mode.  Shrinking
 * and growth within the slot need no new array and succeed.  Needs
 * COMPACTPTR_ARENA_LIMIT=1M. */
static void case_try_realloc_exhausted(void **state) {
  (void)state;
  static void *arr;
  cp_root_register(&arr, 1);
  arr = cp_alloc_array(&node_desc, 1000);
  for (int i = 0; i < 1000; i++)
    ((struct c_node *)arr)[i].key = i;
  assert_ptr_equal(cp_try_realloc_array(&node_desc, arr, 900), arr);
  assert_false(cp__switch_pending);
  assert_null(cp_try_realloc_array(&node_desc, arr, 300000)); /* 3.6 MB */
  assert_true(cp__switch_pending);
  for (int i = 0; i < 900; i++)
    assert_int_equal(((struct c_node *)arr)[i].key, i);
  cp_safepoint();
  assert_false(cp_is_compact());
  struct w_node *big = cp_try_realloc_array(&node_desc, arr, 300000);
  assert_non_null(big);
  for (int i = 0; i < 900; i++)
    assert_int_equal(big[i].key, i);
  assert_int_equal(big[299999].key, 0);
  arr = big;
}

/* ---- the smallest accepted COMPACTPTR_ARENA_LIMIT holds a slab ---------
 * Run with COMPACTPTR_ARENA_LIMIT=128K (and 64K must be refused: bad-knobs
 * lit test).  64K used to be accepted, and then the first allocation
 * failed: no aligned 16-page run fits beside page 0. */
static void case_smallest_limit(void **state) {
  (void)state;
  void *p = cp_alloc(&node_desc);
  assert_non_null(p);
  cp_free(p);
  assert_true(cp__switch_pending); /* one slab is past any mark */
  cp_safepoint();
  assert_false(cp_is_compact());
}

/* ---- cp_decode_checked on every kind of handle --------------------------
 * One past the end of an array is valid (the verifier and the switch take
 * it); it used to be rejected, so COMPACTPTR_DEBUG=1 stopped programs that
 * keep `end` pointers in compact fields. */
static struct c_node *dc_n, *dc_m, *dc_arr, *dc_sm;
static void dc_setup(void) {
  if (dc_n)
    return;
  dc_n = cp_alloc(&node_desc);
  dc_m = cp_alloc(&node_desc);
  dc_arr = cp_alloc_array(&node_desc, 3000); /* a block */
  dc_sm = cp_alloc_array(&node_desc, 4);     /* a full class-2 slot */
  cp_free(dc_m);
}
static void dc_decode(void *arg) { cp_decode_checked((cp_handle_t)(uintptr_t)arg); }
#define DC_FATAL(h, needle) expect_fatal(dc_decode, (void *)(uintptr_t)(h), needle)

static void case_decode_checked(void **state) {
  (void)state;
  DC_FATAL(5, "no object lives there"); /* before the arena exists */
  dc_setup();
  assert_null(cp_decode_checked(0));
  assert_ptr_equal(cp_decode_checked(cp_encode(dc_n)), dc_n);
  assert_ptr_equal(cp_decode_checked(cp_encode(&dc_n->prev)), &dc_n->prev);
  assert_ptr_equal(cp_decode_checked(cp_encode(&dc_arr[2999])), &dc_arr[2999]);
  assert_ptr_equal(cp_decode_checked(cp_encode(&dc_arr[3000])), &dc_arr[3000]);
  assert_ptr_equal(cp_decode_checked(cp_encode(&dc_sm[4])), &dc_sm[4]);
  DC_FATAL(cp_encode(dc_m), "is free (use after free?)");
  DC_FATAL(cp_encode(dc_n + 5), "is free (use after free?)");
  DC_FATAL(1, "no object lives there"); /* page 0 */
  DC_FATAL(0xFFFFFFF0u, "no object lives there"); /* past the limit */
  DC_FATAL(cp_encode((char *)dc_arr + (1 << 20)), "no object lives there");
  DC_FATAL(cp_encode(&dc_arr[3001]), "no object lives there"); /* run tail */
  cp_switch_to_wide();
  DC_FATAL(7, "decoded in wide mode");
}

/* ---- objects above CP_LARGE_OBJECT, zero-field types, nested struct
 * arrays with handles and an interior root into a nested field ---------- */
struct c_big { cp_handle_t a; char pad[69992]; cp_handle_t b; };
struct w_big { struct w_big *a; char pad[69992]; struct w_big *b; };
extern cp_type_desc_t big_desc;
static const cp_field_desc_t big_fields[] = {
    FIELD("a", struct c_big, struct w_big, a, CP_FIELD_HANDLE, 1, 0, &big_desc),
    FIELD("pad", struct c_big, struct w_big, pad, CP_FIELD_BYTES, 1, 69992, NULL),
    FIELD("b", struct c_big, struct w_big, b, CP_FIELD_HANDLE, 1, 0, &big_desc)};
DESC(big_desc, "big", struct c_big, struct w_big, big_fields);
static cp_type_desc_t empty_desc = {CP_ABI_VERSION, CP_GRANULE_SHIFT,
                                    CP_BUILD_SWITCHABLE, "empty", CP_GRANULE,
                                    CP_GRANULE, 1, 1, 0, NULL, &cp__module,
                                    NULL};
struct c_nest {
  int k;
  struct c_pair ps[3];
  cp_handle_t kids[2];
#if CP_GRANULE_SHIFT == 3
  uint32_t pad; /* compact sizes are multiples of the granule */
#endif
};
struct w_nest { int k; struct w_pair ps[3]; struct w_node *kids[2]; };
extern cp_type_desc_t nest_desc;
static const cp_field_desc_t nest_fields[] = {
    FIELD("k", struct c_nest, struct w_nest, k, CP_FIELD_BYTES, 1, 4, NULL),
    FIELD("ps", struct c_nest, struct w_nest, ps, CP_FIELD_STRUCT, 3, 0, &pair_desc),
    FIELD("kids", struct c_nest, struct w_nest, kids, CP_FIELD_HANDLE, 2, 0, &node_desc)};
DESC(nest_desc, "nest", struct c_nest, struct w_nest, nest_fields);

static void case_large_empty_nested(void **state) {
  (void)state;
  static void *r1, *r2, *r3, *re, *rn, *rnf;
  void **roots[] = {&r1, &r2, &r3, &re, &rn, &rnf};
  for (unsigned i = 0; i < 6; i++)
    cp_root_register(roots[i], 1);
  struct c_big *a = cp_alloc(&big_desc), *b = cp_alloc(&big_desc);
  assert_int_equal(slab_of(a)->kind, CP_BLOCK);
  a->a = cp_encode(b);
  a->b = cp_encode(a);
  b->pad[5] = 7;
  struct c_big *c = cp_realloc_array(&big_desc, b, 3);
  c[2].pad[0] = 1;
  a->a = cp_encode(&c[1]);
  r1 = a;
  r2 = &a->b; /* an interior root at the last field */
  r3 = c;
  re = cp_alloc(&empty_desc);
  cp_alloc_array(&empty_desc, 3);
  struct c_nest *ns = cp_alloc_array(&nest_desc, 5);
  struct c_node *x = cp_alloc(&node_desc);
  x->key = 31;
  ns[2].ps[1].b = cp_encode(x);
  ns[4].kids[1] = cp_encode(x);
  ns[0].k = 9;
  rn = ns;
  rnf = &ns[2].ps[1].b; /* an interior root inside a nested struct */
  cp_switch_to_wide();
  struct w_big *wa = r1, *wc = r3;
  assert_ptr_equal(wa->a, &wc[1]);
  assert_ptr_equal(wa->b, wa);
  assert_ptr_equal(r2, &wa->b);
  assert_int_equal(wc[0].pad[5], 7);
  assert_int_equal(wc[2].pad[0], 1);
  struct w_nest *wn = rn;
  assert_int_equal(wn[0].k, 9);
  assert_int_equal(wn[2].ps[1].b->key, 31);
  assert_ptr_equal(wn[4].kids[1], wn[2].ps[1].b);
  assert_ptr_equal(rnf, &wn[2].ps[1].b);
  assert_true(cp__arena_contains(&cp__wide_arena, re));
  void *nb = cp_alloc(&big_desc);
  cp_free(nb);
  cp_free(wa);
}

/* ---- the switch with arrays of every size ------------------------------
 * n = 1..600 and every class and block boundary up to 4097, of a 12-byte
 * (node) and a 16-byte (quad) compact type: each element links to the next
 * one in its array (the last one to one past the end), a root holds each
 * array's start and one its end. */
static void case_every_size(void **state) {
  (void)state;
  enum { NS = 600 + 40 };
  static size_t sizes[NS];
  size_t ns = 0;
  for (size_t n = 1; n <= 600; n++)
    sizes[ns++] = n;
  for (size_t k = 10; k <= 12; k++)
    for (int d = -1; d <= 1; d++)
      sizes[ns++] = ((size_t)1 << k) + (size_t)d;
  sizes[ns++] = 682; /* 8 KiB / 12 */
  sizes[ns++] = 683;
  void **starts = cp_root_array_alloc(2 * ns), **ends = cp_root_array_alloc(2 * ns);
  for (size_t i = 0; i < 2 * ns; i++) {
    size_t n = sizes[i % ns];
    int t = i >= ns; /* 0: node, 1: quad */
    size_t st = t ? sizeof(struct c_quad) : sizeof(struct c_node);
    char *a = cp_alloc_array(t ? &quad_desc : &node_desc, n);
    for (size_t j = 0; j < n; j++) {
      char *e = a + j * st;
      *(int *)e = (int)(n * 10000 + j);
      /* next is at offset 4 in both compact layouts */
      *(cp_handle_t *)(e + 4) = cp_encode(a + (j + 1) * st);
    }
    starts[i] = a;
    ends[i] = a + n * st;
  }
  cp_switch_to_wide();
  for (size_t i = 0; i < 2 * ns; i++) {
    size_t n = sizes[i % ns];
    int t = i >= ns;
    size_t st = t ? sizeof(struct w_quad) : sizeof(struct w_node);
    size_t off = t ? offsetof(struct w_quad, next) : offsetof(struct w_node, next);
    char *a = starts[i];
    assert_true(cp_object_count(a) >= n);
    for (size_t j = 0; j < n; j++) {
      char *e = a + j * st;
      assert_int_equal(*(int *)e, (int)(n * 10000 + j));
      assert_ptr_equal(*(char **)(e + off), a + (j + 1) * st);
    }
    assert_ptr_equal(ends[i], a + n * st);
  }
}

#define CASE(name) {#name, case_##name}
static const struct {
  const char *name;
  void (*fn)(void **);
} cases[] = {
    CASE(xlate_past_block),
    CASE(root_past_exact_block),
    CASE(root_past_exact_slab),
    CASE(handle_past_slab_array),
    CASE(dangling_root),
    CASE(odd_wide_stride),
    CASE(bad_frees),
    CASE(realloc_classes),
    CASE(realloc_moves_pages),
    CASE(malformed_descriptors),
    CASE(high_water_100),
    CASE(try_exhausted_pending),
    CASE(try_realloc_exhausted),
    CASE(smallest_limit),
    CASE(decode_checked),
    CASE(large_empty_nested),
    CASE(every_size),
};

int main(int argc, char **argv) {
  for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof cases[0]; i++) {
    if (strcmp(argv[1], cases[i].name))
      continue;
    const struct CMUnitTest t[] = {{cases[i].name, cases[i].fn, NULL, NULL, NULL}};
    return _cmocka_run_group_tests(cases[i].name, t, 1, NULL, NULL);
  }
  fprintf(stderr, "usage: %s CASE\ncases:", argv[0]);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    fprintf(stderr, " %s", cases[i].name);
  fprintf(stderr, "\n");
  return 2;
}
