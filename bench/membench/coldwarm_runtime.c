/*
 * coldwarm_runtime.c - the compactptr runtime's operations for
 * `compactptr-membench coldwarm`: the only membench file that needs the
 * runtime (linked against compactptr_static).
 *
 * The node type is described by hand, as the plugin would generate it:
 *   node { int key; node *next; }   wide 16 bytes, compact 8 bytes.
 * Operations:
 *   decode       cp_decode of a handle held in memory (the load of the
 *                handle, then a shift: handles are zero-based);
 *   decode-load  the same, then a load of the object's first field;
 *   alloc        cp_alloc of one node (freed outside the timed region);
 *   dispatch     a call to a dual function: the wide symbol tests the mode
 *                and calls the compact body, counting compact depth, as
 *                the plugin's dispatch does; the body reads one field;
 *   pagemap      cp_object_count: address -> slab through the page map.
 * Flush hooks name the object's line, the page-map entry, the slab record
 * and the type record (located through the runtime's internal header).
 */
#define COMPACTPTR_RUNTIME 1
#include <compactptr.h>

#include "membench.h"

#include "internal.h"

struct w_node { int key; struct w_node *next; };
struct c_node { int key; cp_handle_t next; };

extern cp_type_desc_t mb_node_desc;
CP_DEFINE_MODULE();
static const cp_field_desc_t mb_node_fields[] = {
    {"key", offsetof(struct c_node, key), offsetof(struct w_node, key), CP_FIELD_BYTES, 1, 4, NULL},
    {"next", offsetof(struct c_node, next), offsetof(struct w_node, next), CP_FIELD_HANDLE, 1, 0,
     &mb_node_desc},
};
cp_type_desc_t mb_node_desc = {CP_ABI_VERSION, CP_GRANULE_SHIFT, CP_BUILD_SWITCHABLE,
                               "mb_node", sizeof(struct c_node), _Alignof(struct c_node),
                               sizeof(struct w_node), _Alignof(struct w_node),
                               sizeof mb_node_fields / sizeof mb_node_fields[0],
                               mb_node_fields, &cp__module, NULL};
CP_REGISTER_TYPE(mb_node_desc);

typedef struct rt_ctx {
  struct c_node *obj;        /* a live object */
  volatile cp_handle_t h;    /* its handle, in memory */
  void *last;                /* alloc: the object just allocated */
} rt_ctx_t;

static rt_ctx_t ctx;
static volatile uintptr_t sink;

/* ---- the dual function, as the plugin would emit it -------------------- */
__attribute__((noinline)) static int mb_key__cp(struct c_node *p) { return p->key; }
__attribute__((noinline)) static int mb_key(struct w_node *p) {
  if (cp_is_compact()) {
    cp__compact_depth++;
    int r = mb_key__cp((struct c_node *)(void *)p);
    cp__compact_depth--;
    return r;
  }
  return p->key;
}
static int (*volatile mb_key_fp)(struct w_node *) = mb_key;

/* ---- operations ------------------------------------------------------------ */
static void run_decode(void *c) { sink = (uintptr_t)cp_decode(((rt_ctx_t *)c)->h); }
static void run_decode_load(void *c) {
  sink = (uintptr_t)((struct c_node *)cp_decode(((rt_ctx_t *)c)->h))->key;
}
static void run_alloc(void *c) { ((rt_ctx_t *)c)->last = cp_alloc(&mb_node_desc); }
static void after_alloc(void *c) {
  rt_ctx_t *x = c;
  cp_free(x->last);
}
static void run_dispatch(void *c) {
  sink = (uintptr_t)mb_key_fp((struct w_node *)(void *)((rt_ctx_t *)c)->obj);
}
static void run_pagemap(void *c) { sink = cp_object_count(((rt_ctx_t *)c)->obj); }

/** The runtime-owned lines behind object p. */
static void flush_runtime_lines(const void *p) {
  if (!p) return;
  mb_flush_range(p, sizeof(struct c_node));
  cp_arena_t *a = cp__current_arena();
  if (cp__arena_contains(a, p)) {
    cp_slab_t *s = a->pagemap[cp__arena_page(a, p)];
    mb_flush_range(&a->pagemap[cp__arena_page(a, p)], sizeof(void *));
    if (s) {
      mb_flush_range(s, sizeof *s);
      if (s->live) mb_flush_range(s->live, 8);
    }
  }
  if (mb_node_desc.rt) mb_flush_range(mb_node_desc.rt, sizeof(cp_type_t));
}
static void flush_obj(void *c) { flush_runtime_lines(((rt_ctx_t *)c)->obj); }
static void flush_alloc(void *c) {
  rt_ctx_t *x = c;
  flush_runtime_lines(x->last ? x->last : x->obj);
}

size_t mb_runtime_ops(mb_op_t *ops, size_t cap, const char **why) {
  static const mb_op_t tab[] = {
      {"decode", "cp_decode of a handle in memory", run_decode, NULL, NULL, &ctx},
      {"decode-load", "cp_decode, then load the object's first field", run_decode_load,
       flush_obj, NULL, &ctx},
      {"alloc", "cp_alloc of a 8-byte compact node (freed untimed)", run_alloc, flush_alloc,
       after_alloc, &ctx},
      {"dispatch", "call of a dual function: mode test, depth count, compact body",
       run_dispatch, flush_obj, NULL, &ctx},
      {"pagemap", "cp_object_count: address -> slab through the page map", run_pagemap,
       flush_obj, NULL, &ctx},
  };
  *why = NULL;
  if (!ctx.obj) {
    ctx.obj = cp_try_alloc(&mb_node_desc);
    if (!ctx.obj || !cp_is_compact()) {
      *why = "the runtime could not allocate a compact object";
      return 0;
    }
    ctx.obj->key = 7;
    ctx.h = cp_encode(ctx.obj);
  }
  size_t n = sizeof tab / sizeof tab[0];
  if (n > cap) n = cap;
  for (size_t i = 0; i < n; i++) ops[i] = tab[i];
  return n;
}
