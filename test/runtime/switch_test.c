/*
 * switch_test.c - the switch on hand-built heaps: content and shape are
 * checked before and after.  One case per process (the switch happens once);
 * CTest runs every case, under COMPACTPTR_VERIFY=1.
 *   usage: switch_test CASE
 */
#define CP_TEST_DEFINE_TYPES
#include "internal.h"
#include "testtypes.h"
#include "testutil.h"

#include <pthread.h>

/* ---- singly linked list, roots in a registered global ------------------ */
static void *list_head, *list_tail;

static long list_sum(void) {
  long s = 0, n = 0;
  for (void *p = list_head; p; p = NODE_NEXT(p), n++)
    s += NODE_KEY(p) * (n + 1);
  return s;
}

static void case_list(void **state) {
  (void)state;
  assert_int_equal(cp_root_register(&list_head, 1), 0);
  assert_int_equal(cp_root_register(&list_tail, 1), 0);
  for (int i = 0; i < 10000; i++) {
    void *p = cp_alloc(&node_desc);
    NODE_KEY(p) = i * 7 % 1000;
    if (list_tail)
      SET_NEXT(list_tail, p);
    else
      list_head = p;
    list_tail = p;
  }
  long before = list_sum();
  cp_switch_to_wide();
  assert_false(cp_is_compact());
  assert_int_equal(list_sum(), before);
  assert_int_equal(NODE_KEY(list_tail), 9999 * 7 % 1000);
  assert_null(NODE_NEXT(list_tail));
  assert_true(cp__arena_contains(&cp__wide_arena, list_head));
  assert_null(cp__compact_arena.base); /* the arena is released */
}

/* ---- doubly linked cycle ----------------------------------------------- */
static void *ring;

static void check_ring(int n) {
  void *p = ring;
  for (int i = 0; i < n; i++) {
    assert_ptr_equal(NODE_PREV(NODE_NEXT(p)), p);
    assert_int_equal(NODE_KEY(p), i);
    p = NODE_NEXT(p);
  }
  assert_ptr_equal(p, ring);
}

static void case_dlist_cycle(void **state) {
  (void)state;
  cp_root_register(&ring, 1);
  void *prev = NULL;
  for (int i = 0; i < 5000; i++) {
    void *p = cp_alloc(&node_desc);
    NODE_KEY(p) = i;
    if (prev) {
      SET_NEXT(prev, p);
      SET_PREV(p, prev);
    } else {
      ring = p;
    }
    prev = p;
  }
  SET_NEXT(prev, ring);
  SET_PREV(ring, prev);
  check_ring(5000);
  cp_switch_to_wide();
  check_ring(5000);
}

/* ---- tree with parent links -------------------------------------------- */
static void *root;
#define T_LEFT 1
#define T_RIGHT 2
#define T_PARENT 3

static void tree_insert(long v) {
  void *n = cp_alloc(&tree_desc);
  *(long *)field_addr(n, &tree_desc, 0) = v;
  if (!root) {
    root = n;
    return;
  }
  void *p = root;
  for (;;) {
    unsigned f = v < *(long *)field_addr(p, &tree_desc, 0) ? T_LEFT : T_RIGHT;
    void *c = link_get(p, &tree_desc, f, 0);
    if (!c) {
      link_set(p, &tree_desc, f, 0, n);
      link_set(n, &tree_desc, T_PARENT, 0, p);
      return;
    }
    p = c;
  }
}

static void tree_walk(void *n, long *prev, long *count, long *sum) {
  if (!n)
    return;
  void *l = link_get(n, &tree_desc, T_LEFT, 0), *r = link_get(n, &tree_desc, T_RIGHT, 0);
  if (l) assert_ptr_equal(link_get(l, &tree_desc, T_PARENT, 0), n);
  if (r) assert_ptr_equal(link_get(r, &tree_desc, T_PARENT, 0), n);
  tree_walk(l, prev, count, sum);
  long v = *(long *)field_addr(n, &tree_desc, 0);
  assert_true(v >= *prev);
  *prev = v;
  ++*count;
  *sum += v * *count;
  tree_walk(r, prev, count, sum);
}

static void case_tree_parent(void **state) {
  (void)state;
  cp_root_register(&root, 1);
  uint64_t seed = 7;
  for (int i = 0; i < 20000; i++)
    tree_insert((long)rng_below(&seed, 1000000));
  long prev = -1, count = 0, sum = 0;
  tree_walk(root, &prev, &count, &sum);
  cp_switch_to_wide();
  long prev2 = -1, count2 = 0, sum2 = 0;
  tree_walk(root, &prev2, &count2, &sum2);
  assert_int_equal(count2, 20000);
  assert_int_equal(sum2, sum);
}

/* ---- graph with cycles, self loops and handle arrays -------------------- */
enum { GN = 3000 };
static void **gnodes; /* a root array */

static uint64_t graph_digest(void) {
  uint64_t h = 0;
  for (int i = 0; i < GN; i++) {
    void *g = gnodes[i];
    h = h * 31 + (uint64_t)*(int *)field_addr(g, &graph_desc, 0);
    for (unsigned k = 0; k < 4; k++) {
      void *c = link_get(g, &graph_desc, 1, k);
      h = h * 31 + (c ? (uint64_t)*(int *)field_addr(c, &graph_desc, 0) + 1 : 0);
    }
    h = h * 31 + (uint64_t)*(short *)field_addr(g, &graph_desc, 2);
  }
  return h;
}

static void case_graph(void **state) {
  (void)state;
  gnodes = cp_root_array_alloc(GN);
  uint64_t seed = 99;
  for (int i = 0; i < GN; i++) {
    gnodes[i] = cp_alloc(&graph_desc);
    *(int *)field_addr(gnodes[i], &graph_desc, 0) = i;
  }
  for (int i = 0; i < GN; i++) {
    short deg = 0;
    for (unsigned k = 0; k < 4; k++) {
      uint32_t r = rng_below(&seed, GN + GN / 4);
      void *t = r < GN ? gnodes[r] : NULL;
      if (i % 5 == 0 && k == 0)
        t = gnodes[i]; /* self loop */
      link_set(gnodes[i], &graph_desc, 1, k, t);
      deg += t != NULL;
    }
    *(short *)field_addr(gnodes[i], &graph_desc, 2) = deg;
  }
  uint64_t before = graph_digest();
  cp_switch_to_wide();
  assert_true(graph_digest() == before);
  assert_ptr_equal(link_get(gnodes[5], &graph_desc, 1, 0), gnodes[5]);
}

/* ---- nested by-value structs holding handles ---------------------------- */
static void case_holder_nested(void **state) {
  (void)state;
  void **hs = cp_root_array_alloc(100);
  for (int i = 0; i < 100; i++) {
    void *h = cp_alloc(&holder_desc);
    hs[i] = h;
    struct c_holder *c = h;
    c->d = i * 0.5;
    memcpy(c->tag, "ab", 3);
    for (int k = 0; k < 2; k++) {
      void *a = cp_alloc(&node_desc), *b = cp_alloc(&node_desc);
      NODE_KEY(a) = i * 10 + k;
      NODE_KEY(b) = -(i * 10 + k);
      c->p[k].a = cp_encode(a);
      c->p[k].b = cp_encode(b);
    }
  }
  /* A wide-layout value on the stack, registered as a root. */
  struct w_holder local = {{'x', 'y', 0}, {{NULL, NULL}, {NULL, NULL}}, 3.25};
  local.p[1].a = cp_decode(((struct c_holder *)hs[3])->p[0].a);
  assert_int_equal(cp_root_register_value(&local, &holder_desc, 1), 0);
  cp_switch_to_wide();
  for (int i = 0; i < 100; i++) {
    struct w_holder *w = hs[i];
    assert_true(w->d == i * 0.5);
    assert_string_equal(w->tag, "ab");
    for (int k = 0; k < 2; k++) {
      assert_int_equal(((struct w_node *)w->p[k].a)->key, i * 10 + k);
      assert_int_equal(((struct w_node *)w->p[k].b)->key, -(i * 10 + k));
    }
  }
  assert_ptr_equal(local.p[1].a, ((struct w_holder *)hs[3])->p[0].a);
  assert_null(local.p[0].a);
}

/* ---- heap arrays of compact objects with interior pointers -------------- */
/* n = 100 lands in an array slab (size class of 128), n = 2000 in a block. */
static void array_interior(int n) {
  static void *arr, *mid, *one_field, *other;
  cp_root_register(&arr, 1);
  cp_root_register(&mid, 1);
  cp_root_register(&one_field, 1); /* points at a field: interior */
  cp_root_register(&other, 1);
  /* a second array in the same slab or next to the block */
  struct c_node *o = cp_alloc_array(&node_desc, (size_t)n);
  struct c_node *c = cp_alloc_array(&node_desc, (size_t)n);
  arr = c;
  other = o;
  for (int i = 0; i < n; i++) {
    c[i].key = i * i;
    c[i].next = i + 1 < n ? cp_encode(&c[i + 1]) : 0;
    c[i].prev = i ? cp_encode(&c[i - 1]) : cp_encode(&o[n - 1]);
    o[i].key = -i;
  }
  mid = &c[n / 2];
  one_field = &c[7].prev;
  cp_switch_to_wide();
  struct w_node *w = arr, *wo = other;
  for (int i = 0; i < n; i++) {
    assert_int_equal(w[i].key, i * i);
    assert_ptr_equal(w[i].next, i + 1 < n ? &w[i + 1] : NULL);
    assert_ptr_equal(w[i].prev, i ? &w[i - 1] : &wo[n - 1]);
    assert_int_equal(wo[i].key, -i);
  }
  assert_ptr_equal(mid, &w[n / 2]);
  assert_ptr_equal(one_field, &w[7].prev);
  assert_true(cp_object_count(arr) >= (size_t)n); /* a capacity */
}

static void case_heap_array_interior(void **state) {
  (void)state;
  array_interior(100);
}
static void case_heap_block_interior(void **state) {
  (void)state;
  array_interior(2000);
}

/* ---- root arrays and shadow-stack frames -------------------------------- */
static void case_root_arrays_and_frames(void **state) {
  (void)state;
  void **ra = cp_root_array_alloc(64);
  for (int i = 0; i < 64; i++) {
    ra[i] = i % 3 ? cp_alloc(&node_desc) : NULL;
    if (ra[i])
      NODE_KEY(ra[i]) = i;
  }
  ra = cp_root_array_realloc(ra, 128);
  void *local = ra[1];
  struct w_pair pair = {ra[2], ra[4]};
  cp_root_desc_t roots[] = {{&local, CP_ROOT_POINTER, 1, &node_desc, "local"},
                            {&pair, CP_ROOT_VALUE, 1, &pair_desc, "pair"}};
  cp_frame_t frame = {NULL, 2, roots};
  cp_frame_push(&frame);
  cp_switch_to_wide();
  cp_frame_pop(&frame);
  assert_ptr_equal(cp__frame_top, &cp__frame_bottom);
  for (int i = 0; i < 64; i++) {
    if (i % 3)
      assert_int_equal(NODE_KEY(ra[i]), i);
    else
      assert_null(ra[i]);
  }
  assert_null(ra[100]);
  assert_ptr_equal(local, ra[1]);
  assert_ptr_equal(pair.a, ra[2]);
  assert_ptr_equal(pair.b, ra[4]);
  cp_root_array_free(ra);
}

/* Pinned objects (a work queue: a mutex beside compact pointers, as the
 * plugin keeps it in switchable mode): the switch leaves them where they
 * are -- a thread may wait on the mutex at that address -- and translates
 * their compact pointers in place, a handle array's too. */
struct w_queue {
  pthread_mutex_t mu;
  struct w_node *head;
  long n;
  struct w_node *ring[3];
};
static const cp_field_desc_t queue_fields[] = {
    FIELD("head", struct w_queue, struct w_queue, head, CP_FIELD_HANDLE, 1, 0,
          &node_desc),
    FIELD("ring", struct w_queue, struct w_queue, ring, CP_FIELD_HANDLE, 3, 0,
          &node_desc),
};
static DESC(queue_desc, "queue", struct w_queue, struct w_queue, queue_fields);

static void case_pinned(void **state) {
  (void)state;
  struct w_queue *q = cp_pinned_alloc(&queue_desc, 2);
  assert_int_equal((uintptr_t)q % 16, 0);
  pthread_mutex_init(&q[0].mu, NULL);
  for (int i = 0; i < 2; i++) {
    q[i].head = cp_alloc(&node_desc);
    NODE_KEY(q[i].head) = 10 + i;
    q[i].ring[2] = cp_alloc(&node_desc);
    NODE_KEY(q[i].ring[2]) = 20 + i;
    q[i].n = 30 + i;
  }
  q = cp_realloc_any(q, 3 * sizeof *q - 1); /* whole objects: 3 */
  assert_null(q[2].head);
  struct w_queue *kept = q;
  pthread_mutex_lock(&q[0].mu);
  cp_switch_to_wide();
  assert_ptr_equal(q, kept);
  for (int i = 0; i < 2; i++) {
    assert_true(cp__arena_contains(&cp__wide_arena, q[i].head));
    assert_int_equal(NODE_KEY(q[i].head), 10 + i);
    assert_int_equal(NODE_KEY(q[i].ring[2]), 20 + i);
    assert_null(q[i].ring[0]);
    assert_int_equal(q[i].n, 30 + i);
  }
  assert_int_equal(pthread_mutex_unlock(&q[0].mu), 0);
  cp_free_any(q);
}

/* A frame of slots as the plugin emits it: the frame and its slots in one
 * struct, static descriptors whose addr is each slot's offset from the
 * frame (CP_FRAME_RELATIVE), pushed under an absolute frame. */
static void case_relative_frame(void **state) {
  (void)state;
  void *a = cp_alloc(&node_desc), *b = cp_alloc(&node_desc);
  void *c = cp_alloc(&node_desc);
  NODE_KEY(a) = 11;
  NODE_KEY(b) = 22;
  NODE_KEY(c) = 33;
  struct slotframe {
    cp_frame_t f;
    void *s[3];
  } sf;
  static const cp_root_desc_t descs[3] = {
      {(void *)__builtin_offsetof(struct slotframe, s[0]), CP_ROOT_POINTER, 1,
       &node_desc, "a"},
      {(void *)__builtin_offsetof(struct slotframe, s[1]), CP_ROOT_POINTER, 1,
       &node_desc, "b"},
      {(void *)__builtin_offsetof(struct slotframe, s[2]), CP_ROOT_POINTER, 1,
       &node_desc, "none"}};
  void *outer = c;
  cp_root_desc_t outer_root = {&outer, CP_ROOT_POINTER, 1, &node_desc, "outer"};
  cp_frame_t outer_frame = {NULL, 1, &outer_root};
  cp_frame_push(&outer_frame);
  sf.s[0] = a;
  sf.s[1] = b;
  sf.s[2] = NULL;
  sf.f.count = 3 | CP_FRAME_RELATIVE;
  sf.f.roots = descs;
  cp_frame_push(&sf.f);
  cp_switch_to_wide();
  cp_frame_pop(&sf.f);
  cp_frame_pop(&outer_frame);
  assert_true(sf.s[0] != a && sf.s[1] != b && outer != c);
  assert_int_equal(NODE_KEY(sf.s[0]), 11);
  assert_int_equal(NODE_KEY(sf.s[1]), 22);
  assert_int_equal(NODE_KEY(outer), 33);
  assert_null(sf.s[2]);
}

/* ---- freed slots are reused after the switch ---------------------------- */
static void case_freed_slots_reused(void **state) {
  (void)state;
  void **ra = cp_root_array_alloc(1000);
  for (int i = 0; i < 1000; i++)
    ra[i] = cp_alloc(&node_desc);
  for (int i = 0; i < 1000; i += 2) {
    cp_free(ra[i]);
    ra[i] = NULL;
  }
  cp_switch_to_wide();
  cp_type_t *t = cp__type_resolve(&node_desc);
  int slabs = 0;
  for (cp_slab_t *s = t->all; s; s = s->next_all)
    slabs++;
  for (int i = 0; i < 500; i++) {
    void *p = cp_alloc(&node_desc);
    cp_slab_t *s = cp__slab_of(&cp__wide_arena, p);
    assert_non_null(s);
    assert_true((char *)p < (char *)ra[999] + 24); /* inside the old range */
  }
  int slabs_after = 0;
  for (cp_slab_t *s = t->all; s; s = s->next_all)
    slabs_after++;
  assert_int_equal(slabs_after, slabs);
  for (int i = 1; i < 1000; i += 2)
    cp_free(ra[i]);
}

/* ---- edge cases ---------------------------------------------------------- */
static void case_empty_heap(void **state) {
  (void)state;
  cp_switch_to_wide();
  assert_false(cp_is_compact());
  void *p = cp_alloc(&node_desc);
  NODE_KEY(p) = 5;
  assert_int_equal(((struct w_node *)p)->key, 5);
  cp_free(p);
}

static void case_registered_empty_heap(void **state) {
  (void)state;
  cp_free(cp_alloc(&tree_desc));
  cp_switch_to_wide();
  assert_false(cp_is_compact());
}

/* Needs COMPACTPTR_ARENA_LIMIT=1M: the switch becomes pending exactly when
 * the arena's use reaches the high-water mark, and a safepoint runs it. */
static void case_high_water_exact(void **state) {
  (void)state;
  static void *head;
  cp_root_register(&head, 1);
  uint64_t n = 0, used_before = 0;
  while (!cp__switch_pending) {
    used_before = cp__compact_arena.used_pages;
    void *p = cp_alloc(&node_desc);
    NODE_KEY(p) = (int)n++;
    SET_NEXT(p, head);
    head = p;
  }
  /* The allocation that reached the mark made the switch pending. */
  assert_true(used_before < cp__compact_arena.high_water_pages);
  assert_true(cp__compact_arena.used_pages >= cp__compact_arena.high_water_pages);
  assert_true(cp_is_compact());
  cp_safepoint();
  assert_false(cp_is_compact());
  uint64_t m = 0;
  for (void *p = head; p; p = NODE_NEXT(p), m++)
    assert_int_equal(NODE_KEY(p), (int)(n - 1 - m));
  assert_int_equal(m, n);
}

static void case_deferred_under_compact_body(void **state) {
  (void)state;
  static void *keep;
  cp_root_register(&keep, 1);
  keep = cp_alloc(&node_desc);
  NODE_KEY(keep) = 77;
  cp_request_switch();
  cp__compact_depth = 1; /* as a dispatch into a compact body does */
  cp_safepoint();
  assert_true(cp_is_compact());
  assert_int_equal(cp__safepoints_deferred, 1);
  cp__compact_depth = 0;
  cp_safepoint();
  assert_false(cp_is_compact());
  assert_int_equal(NODE_KEY(keep), 77);
}

/* A thread's first allocations while a switch is pending: its heap's
 * fast path starts off. */
static void *alloc_in_new_thread(void *arg) {
  (void)arg;
  assert_null(cp__try_alloc_at_safepoint(&node_desc));
  void *p = cp_try_alloc(&node_desc);
  assert_non_null(p);
  assert_int_equal(cp__heap->nfast, 0);
  cp_free(p);
  return NULL;
}

/* The allocation at a safepoint has no test of the pending flag on its
 * fast path: a pending switch turns every heap's fast path off, so it
 * fails (its caller then runs the switch) even with free slots at hand,
 * while plain allocations go on through the slow path; the switch turns
 * the fast path back on. */
static void case_fast_path_off_while_pending(void **state) {
  (void)state;
  static void *keep;
  cp_root_register(&keep, 1);
  void *p = cp__try_alloc_at_safepoint(&node_desc);
  assert_non_null(p);
  assert_true(cp__heap->nfast > 0);
  cp_free(p); /* a free slot for the fast path */
  keep = cp_alloc(&node_desc);
  NODE_KEY(keep) = 5;
  cp_request_switch();
  assert_int_equal(cp__heap->nfast, 0);
  assert_null(cp__try_alloc_at_safepoint(&node_desc));
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, alloc_in_new_thread, NULL), 0);
  assert_int_equal(pthread_join(th, NULL), 0);
  cp__compact_depth = 1; /* deferred: allocation goes on, slowly */
  cp_safepoint();
  assert_true(cp_is_compact());
  void *q = cp_try_alloc(&node_desc);
  assert_non_null(q);
  cp_free(q);
  cp__compact_depth = 0;
  cp_safepoint();
  assert_false(cp_is_compact());
  assert_true(cp__heap->nfast > 0);
  p = cp__try_alloc_at_safepoint(&node_desc);
  assert_non_null(p);
  cp_free(p);
  assert_int_equal(NODE_KEY(keep), 5);
}

static void case_forced_twice(void **state) {
  (void)state;
  static void *keep;
  cp_root_register(&keep, 1);
  keep = cp_alloc(&tree_desc);
  assert_false(cp__switch_pending);
  cp_switch_to_wide();
  void *after = keep;
  cp_switch_to_wide(); /* no-op */
  assert_ptr_equal(keep, after);
  cp_safepoint();
}

static void switch_in_compact_body(void *arg) {
  (void)arg;
  cp_alloc(&node_desc);
  cp__compact_depth = 1;
  cp_switch_to_wide();
}

static void case_refusals(void **state) {
  (void)state;
  expect_fatal(switch_in_compact_body, NULL, "while a compact body is active");
}

#define CASE(name) {#name, case_##name}
/* ---- a flexible array member ---------------------------------------------
 * `struct text { text *next; char tag; char s[]; }`: the member's offset is
 * 5 compact and 9 wide.  Objects of several sizes (one slot, small arrays
 * of slots, a block of pages of its own) keep their bytes across the
 * switch, their links are translated, and a root that points into the
 * member points into it afterwards. */
struct w_text {
  struct w_text *next;
  char tag;
  char s[];
};
struct c_text {
  cp_handle_t next;
  char tag;
  char s[];
};
static cp_type_desc_t text_desc;
static const cp_field_desc_t text_fields[] = {
    FIELD("next", struct c_text, struct w_text, next, CP_FIELD_HANDLE, 1, 0,
          &text_desc),
    FIELD("tag", struct c_text, struct w_text, tag, CP_FIELD_BYTES, 1, 1, NULL),
    FIELD("s", struct c_text, struct w_text, s, CP_FIELD_FLEX, 0, 1, NULL),
};
static DESC(text_desc, "text", struct c_text, struct w_text, text_fields);
CP_REGISTER_TYPE(text_desc);

static void *texts, *inside;

static size_t text_len(int i) {
  return i == 7 ? 20000 : (size_t)(i * 37 % 300);
}
static char text_byte(int i, size_t j) { return (char)('a' + (i + j) % 26); }

static void case_flexible_member(void **state) {
  (void)state;
  assert_int_equal(cp_root_register(&texts, 1), 0);
  assert_int_equal(cp_root_register(&inside, 1), 0);
  for (int i = 0; i < 400; i++) {
    size_t n = text_len(i);
    size_t bytes = offsetof(struct c_text, s) + n + 1;
    size_t k = cp_flex_count(&text_desc, bytes);
    /* Room for the member in both layouts. */
    assert_true(k * sizeof(struct c_text) >=
                offsetof(struct c_text, s) + n + 1);
    assert_true(k * sizeof(struct w_text) >=
                offsetof(struct w_text, s) + n + 1);
    void *t = cp_alloc_array(&text_desc, k);
    char *s = field_addr(t, &text_desc, 2);
    for (size_t j = 0; j < n; j++)
      s[j] = text_byte(i, j);
    s[n] = 0;
    *(char *)field_addr(t, &text_desc, 1) = (char)i;
    link_set(t, &text_desc, 0, 0, texts);
    texts = t;
    if (i == 7)
      inside = s + 1234;
  }
  cp_switch_to_wide();
  assert_false(cp_is_compact());
  int i = 399;
  for (void *t = texts; t; t = link_get(t, &text_desc, 0, 0), i--) {
    assert_true(cp__arena_contains(&cp__wide_arena, t));
    assert_int_equal(*(char *)field_addr(t, &text_desc, 1), (char)i);
    const char *s = field_addr(t, &text_desc, 2);
    size_t n = text_len(i);
    for (size_t j = 0; j < n; j++)
      assert_int_equal(s[j], text_byte(i, j));
    assert_int_equal(s[n], 0);
    if (i == 7)
      assert_ptr_equal(inside, s + 1234);
  }
  assert_int_equal(i, -1);
}

/* ---- a flexible array member of compact pointers --------------------------
 * `struct skip { int key; int lvl; skip *forward[]; }`, a skip list's node:
 * handles compact, pointers wide.  The room is asked for in pointers (the
 * program's sizeof), every object gets room for that many elements in both
 * layouts and reads NULL past what it set; the switch translates each
 * element, and a root holding an element's address (a slot pointer) or
 * one past the last names the same element afterwards. */
struct w_skip {
  int key, lvl;
  struct w_skip *forward[];
};
struct c_skip {
  int key, lvl;
  cp_handle_t forward[];
};
static cp_type_desc_t skip_desc;
static const cp_field_desc_t skip_fields[] = {
    FIELD("key", struct c_skip, struct w_skip, key, CP_FIELD_BYTES, 1, 4, NULL),
    FIELD("lvl", struct c_skip, struct w_skip, lvl, CP_FIELD_BYTES, 1, 4, NULL),
    FIELD("forward", struct c_skip, struct w_skip, forward, CP_FIELD_FLEX,
          CP_FIELD_HANDLE, sizeof(void *), &skip_desc),
};
static DESC(skip_desc, "skip", struct c_skip, struct w_skip, skip_fields);
CP_REGISTER_TYPE(skip_desc);

static void *skip_head, *skip_slot, *skip_end;

static int skip_lvl(int i) { return i == 0 ? 3000 : 1 + i % 7; }

static void *skip_get(void *n, int l) {
  char *f = field_addr(n, &skip_desc, 2);
  if (cp_is_compact())
    return cp_decode(((cp_handle_t *)f)[l]);
  return ((void **)f)[l];
}
static void skip_set(void *n, int l, void *v) {
  char *f = field_addr(n, &skip_desc, 2);
  if (cp_is_compact())
    ((cp_handle_t *)f)[l] = cp_encode(v);
  else
    ((void **)f)[l] = v;
}

static void case_flexible_handles(void **state) {
  (void)state;
  assert_int_equal(cp_root_register(&skip_head, 1), 0);
  assert_int_equal(cp_root_register(&skip_slot, 1), 0);
  assert_int_equal(cp_root_register(&skip_end, 1), 0);
  void *prev = NULL;
  for (int i = 0; i < 500; i++) {
    int lvl = skip_lvl(i);
    size_t bytes = sizeof(struct c_skip) + (size_t)lvl * sizeof(void *);
    size_t k = cp_flex_count(&skip_desc, bytes);
    /* Room for lvl handles compact and lvl pointers wide. */
    assert_true(k * sizeof(struct c_skip) >=
                offsetof(struct c_skip, forward) + lvl * sizeof(cp_handle_t));
    assert_true(k * sizeof(struct w_skip) >=
                offsetof(struct w_skip, forward) + lvl * sizeof(void *));
    void *n = cp_alloc_array(&skip_desc, k);
    *(int *)field_addr(n, &skip_desc, 0) = i;
    *(int *)field_addr(n, &skip_desc, 1) = lvl;
    /* Every element of a node, and the first of the next one (its `[1]`
     * names the node before it), the rest left as allocated. */
    for (int l = 0; l < lvl; l++)
      assert_null(skip_get(n, l));
    if (prev)
      skip_set(prev, 0, n);
    if (lvl > 1)
      skip_set(n, 1, prev);
    if (i == 0) {
      skip_head = n;
      skip_slot = (cp_handle_t *)field_addr(n, &skip_desc, 2) + 2999;
      skip_end = (cp_handle_t *)field_addr(n, &skip_desc, 2) + lvl;
    }
    prev = n;
  }
  skip_set(skip_head, 2999, prev); /* the last of a block's elements */
  prev = NULL;                     /* no root: the switch leaves it */
  cp_switch_to_wide();
  assert_false(cp_is_compact());
  void **slots = field_addr(skip_head, &skip_desc, 2);
  assert_ptr_equal(skip_slot, &slots[2999]);
  assert_ptr_equal(skip_end, &slots[3000]);
  int i = 0;
  void *before = NULL;
  for (void *n = skip_head; n; n = skip_get(n, 0), i++) {
    assert_true(cp__arena_contains(&cp__wide_arena, n));
    assert_int_equal(*(int *)field_addr(n, &skip_desc, 0), i);
    int lvl = *(int *)field_addr(n, &skip_desc, 1);
    assert_int_equal(lvl, skip_lvl(i));
    if (lvl > 1)
      assert_ptr_equal(skip_get(n, 1), before);
    for (int l = 2; l < lvl && i != 0; l++)
      assert_null(skip_get(n, l));
    before = n;
  }
  assert_int_equal(i, 500);
  assert_ptr_equal(*(void **)skip_slot, before); /* the last node */
}

/* ---- a flexible array member of compact values ----------------------------
 * `struct zn { long score; struct zl { zn *forward; int span; } level[]; }`:
 * each level 8 bytes compact, 16 wide, so the member's room differs by
 * more than its offsets.  The room is asked for in the level's size of the
 * moment; the switch copies each level by its type's program (the link
 * translated, the span kept), and a root holding the address of a level's
 * span names that span afterwards. */
struct w_zl {
  struct w_zn *forward;
  int span;
};
struct c_zl {
  cp_handle_t forward;
  int span;
};
struct w_zn {
  long score;
  struct w_zl level[];
};
struct c_zn {
  long score;
  struct c_zl level[];
};
static cp_type_desc_t zn_desc, zl_desc;
static const cp_field_desc_t zl_fields[] = {
    FIELD("forward", struct c_zl, struct w_zl, forward, CP_FIELD_HANDLE, 1, 0,
          &zn_desc),
    FIELD("span", struct c_zl, struct w_zl, span, CP_FIELD_BYTES, 1, 4, NULL),
};
static DESC(zl_desc, "zl", struct c_zl, struct w_zl, zl_fields);
static const cp_field_desc_t zn_fields[] = {
    FIELD("score", struct c_zn, struct w_zn, score, CP_FIELD_BYTES, 1, 8, NULL),
    FIELD("level", struct c_zn, struct w_zn, level, CP_FIELD_FLEX,
          CP_FIELD_STRUCT, sizeof(struct w_zl), &zl_desc),
};
static DESC(zn_desc, "zn", struct c_zn, struct w_zn, zn_fields);
CP_REGISTER_TYPE(zn_desc);

static void *zn_head, *zn_span;

static int zn_levels(int i) { return i == 0 ? 2000 : 1 + i % 5; }

static char *zn_level(void *n, int l) {
  return (char *)field_addr(n, &zn_desc, 1) + (size_t)l * obj_stride(&zl_desc);
}

static void case_flexible_values(void **state) {
  (void)state;
  assert_int_equal(cp_root_register(&zn_head, 1), 0);
  assert_int_equal(cp_root_register(&zn_span, 1), 0);
  void *prev = NULL;
  for (int i = 0; i < 300; i++) {
    int lv = zn_levels(i);
    size_t k = cp_flex_count(&zn_desc, sizeof(struct c_zn) +
                                           (size_t)lv * sizeof(struct c_zl));
    assert_true(k * sizeof(struct w_zn) >=
                offsetof(struct w_zn, level) + lv * sizeof(struct w_zl));
    void *n = cp_alloc_array(&zn_desc, k);
    *(long *)field_addr(n, &zn_desc, 0) = i;
    for (int l = 0; l < lv; l++) {
      *(int *)field_addr(zn_level(n, l), &zl_desc, 1) = i * 100 + l;
      assert_null(link_get(zn_level(n, l), &zl_desc, 0, 0));
    }
    if (prev)
      link_set(zn_level(prev, 0), &zl_desc, 0, 0, n);
    if (i == 0) {
      zn_head = n;
      zn_span = field_addr(zn_level(n, 1999), &zl_desc, 1);
    }
    prev = n;
  }
  prev = NULL;
  cp_switch_to_wide();
  assert_false(cp_is_compact());
  assert_ptr_equal(zn_span, field_addr(zn_level(zn_head, 1999), &zl_desc, 1));
  int i = 0;
  for (void *n = zn_head; n;
       n = link_get(zn_level(n, 0), &zl_desc, 0, 0), i++) {
    assert_true(cp__arena_contains(&cp__wide_arena, n));
    assert_int_equal(*(long *)field_addr(n, &zn_desc, 0), i);
    for (int l = 0; l < zn_levels(i); l++)
      assert_int_equal(*(int *)field_addr(zn_level(n, l), &zl_desc, 1),
                       i * 100 + l);
  }
  assert_int_equal(i, 300);
}

/* ---- slot-pointer fields: a queue's tail -------------------------------
 * `struct q { node *head; node **tail; }`: the tail holds the address of
 * the head field or of the last node's `next` handle (in the arena), or a
 * native slot.  The switch moves an arena address with the field it names
 * (in a heap object and in a root value), and leaves the others. */
struct w_tailq {
  struct w_node *head;
  struct w_node **tail;
  long n;
};
struct c_tailq {
  cp_handle_t head;
  uint32_t pad;
  void *tail;
  long n;
};
static const cp_field_desc_t tailq_fields[] = {
    FIELD("head", struct c_tailq, struct w_tailq, head, CP_FIELD_HANDLE, 1, 0,
          &node_desc),
    FIELD("tail", struct c_tailq, struct w_tailq, tail, CP_FIELD_SLOT, 1,
          CP_SLOT_USE_HANDLES, NULL),
    FIELD("n", struct c_tailq, struct w_tailq, n, CP_FIELD_BYTES, 1, 8, NULL),
};
static DESC(tailq_desc, "tailq", struct c_tailq, struct w_tailq, tailq_fields);

static void case_slot_fields(void **state) {
  (void)state;
  static void *qs[4], *native_slot;
  assert_int_equal(cp_root_register(qs, 4), 0);
  struct c_tailq *q[4];
  for (int k = 0; k < 4; k++) {
    qs[k] = q[k] = cp_alloc(&tailq_desc);
    q[k]->tail = &q[k]->head; /* empty: the head field itself */
  }
  for (int i = 0; i < 300; i++) {
    struct c_tailq *c = q[i % 2];
    void *p = cp_alloc(&node_desc);
    NODE_KEY(p) = i;
    *(cp_handle_t *)c->tail = cp_encode(p);
    c->tail = &((struct c_node *)p)->next;
    c->n++;
  }
  q[2]->tail = &native_slot; /* a native slot: left alone */
  /* A root value in the wide layout whose tail names a node's field. */
  struct w_tailq local = {NULL, NULL, 0};
  local.tail = (struct w_node **)q[0]->tail;
  assert_int_equal(cp_root_register_value(&local, &tailq_desc, 1), 0);
  cp_switch_to_wide();
  assert_false(cp_is_compact());
  for (int k = 0; k < 2; k++) {
    struct w_tailq *w = qs[k];
    struct w_node *last = NULL;
    long n = 0;
    for (struct w_node *p = w->head; p; p = p->next, n++) {
      assert_int_equal(p->key, (int)(n * 2 + k));
      last = p;
    }
    assert_int_equal(n, 150);
    assert_ptr_equal(w->tail, &last->next);
    assert_true(cp__arena_contains(&cp__wide_arena, w->tail));
  }
  assert_ptr_equal(((struct w_tailq *)qs[2])->tail, (void *)&native_slot);
  assert_ptr_equal(local.tail, ((struct w_tailq *)qs[0])->tail);
  /* An empty queue's tail names its own head field in the wide copy. */
  struct w_tailq *empty = qs[3];
  assert_ptr_equal(empty->tail, &empty->head);
  struct w_tailq *e = cp_alloc(&tailq_desc);
  e->tail = &e->head;
  assert_ptr_equal(*e->tail, NULL);
  cp_free(e);
}

/* ---- untyped address fields: `void *data`, libuv's `void *QUEUE[2]` ---
 * A field of a type that is not compact may hold an object's address, an
 * address inside one (a handle field's, as a queue links through its
 * members), or one with a tag in its low bit.  The switch moves each to
 * the same place in the wide copy, a byte inside a handle included, and
 * leaves a native address, a small number and NULL alone. */
struct w_bag {
  void *data;
  void *link[2];
  void *other[3];
};
static const cp_field_desc_t bag_fields[] = {
    FIELD("data", struct w_bag, struct w_bag, data, CP_FIELD_ADDRESS, 1, 0,
          NULL),
    FIELD("link", struct w_bag, struct w_bag, link, CP_FIELD_ADDRESS, 2, 0,
          NULL),
    FIELD("other", struct w_bag, struct w_bag, other, CP_FIELD_ADDRESS, 3, 0,
          NULL),
};
static DESC(bag_desc, "bag", struct w_bag, struct w_bag, bag_fields);

static void case_address_fields(void **state) {
  (void)state;
  static void *bags[200];
  static int native;
  assert_int_equal(cp_root_register(bags, 200), 0);
  for (int i = 0; i < 200; i++) {
    struct w_bag *b = bags[i] = cp_alloc(&bag_desc);
    char *n = cp_alloc(&node_desc);
    NODE_KEY(n) = i;
    b->data = n;
    b->link[0] = n + offsetof(struct c_node, prev);     /* a handle field */
    b->link[1] = n + offsetof(struct c_node, next) + 1; /* tagged, in it */
    b->other[0] = &native;
    b->other[1] = (void *)(uintptr_t)0x10;
    b->other[2] = i ? &((struct w_bag *)bags[i - 1])->link[1] : NULL;
  }
  struct w_bag local = *(struct w_bag *)bags[7];
  assert_int_equal(cp_root_register_value(&local, &bag_desc, 1), 0);
  cp_switch_to_wide();
  assert_false(cp_is_compact());
  for (int i = 0; i < 200; i++) {
    struct w_bag *b = bags[i];
    struct w_node *n = b->data;
    assert_true(cp__arena_contains(&cp__wide_arena, n));
    assert_int_equal(n->key, i);
    assert_ptr_equal(b->link[0], &n->prev);
    assert_ptr_equal(b->link[1], (char *)&n->next + 1);
    assert_ptr_equal(b->other[0], &native);
    assert_ptr_equal(b->other[1], (void *)(uintptr_t)0x10);
    assert_ptr_equal(b->other[2],
                     i ? &((struct w_bag *)bags[i - 1])->link[1] : NULL);
  }
  assert_ptr_equal(local.data, ((struct w_bag *)bags[7])->data);
  assert_ptr_equal(local.link[1], ((struct w_bag *)bags[7])->link[1]);
}

static const struct {
  const char *name;
  void (*fn)(void **);
} cases[] = {
    CASE(list),
    CASE(dlist_cycle),
    CASE(tree_parent),
    CASE(graph),
    CASE(holder_nested),
    CASE(heap_array_interior),
    CASE(heap_block_interior),
    CASE(root_arrays_and_frames),
    CASE(pinned),
    CASE(relative_frame),
    CASE(freed_slots_reused),
    CASE(empty_heap),
    CASE(registered_empty_heap),
    CASE(high_water_exact),
    CASE(deferred_under_compact_body),
    CASE(fast_path_off_while_pending),
    CASE(forced_twice),
    CASE(refusals),
    CASE(flexible_member),
    CASE(flexible_handles),
    CASE(flexible_values),
    CASE(slot_fields),
    CASE(address_fields),
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
