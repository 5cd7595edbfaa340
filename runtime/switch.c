/*
 * switch.c - the switch: relocating the compact heap to wide layout.
 *
 * Steps (docs/switch.md), with every other thread stopped (safepoint.c):
 *   0. Bring every slab up to date: remote frees onto the free lists, and
 *      the live bitmap and `used` from bump and the free lists.
 *   1. For every compact slab and block, allocate a wide counterpart in the
 *      wide arena with the same number of slots, so every old slot has a
 *      known new address (cp__translate).
 *   2. Copy every live object field by field with its type's copy program,
 *      translating each handle to a native pointer; slabs are independent,
 *      so for a large heap helper threads take some of them.
 *   3. Translate every root: static root tables, registered slots, root
 *      arrays, every known thread's shadow-stack frames and the start
 *      arguments of threads not yet running.
 *   4. Rebuild the free lists of the wide slabs from the live bitmaps, so
 *      slots freed before the switch are reused after it, and give every
 *      wide slab to the heap that owned its compact original (orphans stay
 *      orphans).
 *   5. Release the compact arena and its metadata.
 *   6. Flip the mode.
 * Work is linear in slabs plus live objects plus roots.
 *
 * When: cp_switch_to_wide() runs it at once; crossing the high-water mark
 * makes it pending and the next legal safepoint runs it.  A safepoint is
 * legal when no compact body is active on its thread's stack
 * (cp__compact_depth == 0); safepoint.c then stops the other threads.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

uint64_t cp__switch_count_objects, cp__switch_bytes_compact,
    cp__switch_bytes_wide, cp__switch_roots;
double cp__switch_seconds, cp__switch_at;
uint64_t cp__arena_limit_seen, cp__arena_peak_seen;
double cp__switch_phase[3];
uint32_t cp__switch_threads, cp__switch_helpers;
static uint64_t switch_alloc_count;
/* Per type: its compact slabs while the wide ones are made. */
static cp_slab_t **compact_all;

/* The slab a handle was last translated through: handles mostly point into
 * the slab of the object being copied or of the previous target, so one
 * cached slab saves most page-map lookups. */
typedef struct xlate_cache {
  char *cstart;     /* compact slab start */
  uint64_t cspan;   /* bytes of its run */
  uint64_t magic, elem_magic;
  uint32_t cslot, wslot, celem, welem, elems;
  char *wstart;     /* its wide counterpart */
  const cp_slab_t *slab; /* for the rare interior pointer */
} xlate_cache_t;

static void xlate_refill(xlate_cache_t *c, const cp_slab_t *s) {
  bool block = s->kind == CP_BLOCK;
  c->cstart = s->start;
  /* Up to one past the end of the last slot or element, inclusive, as
   * cp__slab_owning has it, and never past the run: a span reaching into
   * the next run would claim its objects. */
  uint64_t run = (uint64_t)1 << (s->order + CP_PAGE_SHIFT);
  uint64_t span = cp__span_of(s) + 1;
  c->cspan = span < run ? span : run;
  c->magic = block ? 0 : s->magic;
  c->elem_magic = s->elem_magic;
  c->cslot = s->slot;
  c->wslot = s->wide_slot;
  c->celem = s->elem;
  c->welem = s->wide_elem;
  c->elems = block ? 2 : s->elems; /* > 1: split into elements */
  c->wstart = s->wide_start;
  c->slab = s;
}

/* Everything else: interior pointers, arrays, blocks, a run's first byte
 * (which may be one past the end of the block below), dangling handles. */
static void *xlate_slow(xlate_cache_t *c, char *p) {
  uint64_t off = (uint64_t)(p - c->cstart);
  if (off - 1 >= c->cspan - 1) {
    cp_slab_t *s = cp__slab_owning(&cp__compact_arena, p);
    if (!s || !s->wide_start)
      return p; /* dangling: left as is (the verifier reports it) */
    xlate_refill(c, s);
    off = (uint64_t)(p - c->cstart);
  }
  uint64_t i = (uint64_t)(((unsigned __int128)off * c->magic) >> 64);
  uint64_t rem = off - i * c->cslot;
  char *q = c->wstart + i * c->wslot;
  if (c->elems > 1) {
    uint64_t e = (uint64_t)(((unsigned __int128)rem * c->elem_magic) >> 64);
    rem -= e * c->celem;
    q += e * c->welem;
  }
  return rem == 0 ? q : q + cp__map_offset(c->slab->type, rem);
}

static inline void *xlate(xlate_cache_t *c, cp_handle_t h) {
  if (!h)
    return NULL;
  char *p = cp_decode(h);
  /* The common case reads the page map and the first line of one slab
   * header, with nothing carried from one handle to the next, so the
   * misses of consecutive handles overlap. */
  const cp_arena_t *a = &cp__compact_arena;
  uint64_t pg = ((uintptr_t)p - (uintptr_t)a->base) >> CP_PAGE_SHIFT;
  if (CP_LIKELY(pg < a->npages)) {
    const cp_slab_t *s = a->pagemap[pg];
    if (CP_LIKELY(s && s->kind == CP_SLAB && s->elems == 1 && p != s->start &&
                  s->wide_start)) {
      uint64_t off = (uint64_t)(p - s->start);
      uint64_t i = (uint64_t)(((unsigned __int128)off * s->magic) >> 64);
      if (CP_LIKELY(off == i * s->slot && i < s->nslots))
        return s->wide_start + i * s->wide_slot;
    }
  }
  return xlate_slow(c, p);
}

/* Copies one field run of element e of every live slot of s into w.  The
 * copy goes op by op ("column-wise") rather than object by object, so the
 * dispatch on the op's kind is paid once per slab, not once per object. */
#define FOR_EACH_LIVE(s, i, body)                                              \
  for (uint32_t wd_ = 0; wd_ < ((s)->bump + 63) / 64; wd_++) {                 \
    uint64_t bits_ = (s)->live[wd_];                                           \
    while (bits_) {                                                            \
      uint32_t i = wd_ * 64 + (uint32_t)__builtin_ctzll(bits_);                \
      bits_ &= bits_ - 1;                                                      \
      body                                                                     \
    }                                                                          \
  }

static void copy_op(const cp_copy_op_t *op, const char *src, char *dst,
                    uint32_t csz, uint32_t wsz, uint64_t n, xlate_cache_t *c) {
  src += op->from;
  dst += op->to;
  if (op->kind == CP_FIELD_BYTES) {
    if (op->len == 4)
      for (uint64_t k = 0; k < n; k++)
        memcpy(dst + k * wsz, src + k * csz, 4);
    else if (op->len == 8)
      for (uint64_t k = 0; k < n; k++)
        memcpy(dst + k * wsz, src + k * csz, 8);
    else
      for (uint64_t k = 0; k < n; k++)
        memcpy(dst + k * wsz, src + k * csz, op->len);
    return;
  }
  for (uint64_t k = 0; k < n; k++)
    for (uint32_t j = 0; j < op->len; j++) {
      cp_handle_t h;
      memcpy(&h, src + k * csz + j * sizeof h, sizeof h);
      void *q = xlate(c, h);
      memcpy(dst + k * wsz + j * sizeof q, &q, sizeof q);
    }
}

/* Copies every live object of slab s to its counterpart. */
static void copy_slab(const cp_type_t *t, const cp_slab_t *s, xlate_cache_t *c) {
  const cp_slab_t *w = s->counterpart;
  if (s->kind == CP_BLOCK) {
    for (uint32_t o = 0; o < t->nops; o++)
      copy_op(&t->ops[o], s->start, w->start, s->elem, w->elem, s->count, c);
    return;
  }
  const size_t cs = s->slot, ws = w->slot;
  for (uint32_t o = 0; o < t->nops; o++) {
    const cp_copy_op_t *op = &t->ops[o];
    const char *src = s->start + op->from;
    char *dst = w->start + op->to;
    if (s->elems > 1) { /* small arrays: one call per array */
      FOR_EACH_LIVE(s, i, {
        copy_op(op, s->start + i * cs, w->start + i * ws, s->elem, w->elem,
                s->elems, c);
      })
    } else if (op->kind == CP_FIELD_HANDLE && op->len == 1) {
      FOR_EACH_LIVE(s, i, {
        cp_handle_t h;
        memcpy(&h, src + i * cs, sizeof h);
        void *q = xlate(c, h);
        memcpy(dst + i * ws, &q, sizeof q);
      })
    } else if (op->kind == CP_FIELD_BYTES && op->len == 4) {
      FOR_EACH_LIVE(s, i, { memcpy(dst + i * ws, src + i * cs, 4); })
    } else if (op->kind == CP_FIELD_BYTES && op->len == 8) {
      FOR_EACH_LIVE(s, i, { memcpy(dst + i * ws, src + i * cs, 8); })
    } else {
      FOR_EACH_LIVE(s, i, {
        copy_op(op, s->start + i * cs, w->start + i * ws, s->elem, w->elem, 1,
                c);
      })
    }
  }
}

/* Faults in the wide runs up front: one call per run instead of a page
 * fault per page during the copy (MADV_POPULATE_WRITE, Linux 5.14). */
static void populate(const cp_slab_t *w, uint64_t bytes) {
#ifdef MADV_POPULATE_WRITE
  (void)madvise(w->start, (bytes + CP_PAGE_SIZE - 1) & ~(CP_PAGE_SIZE - 1),
                MADV_POPULATE_WRITE);
#else
  (void)w, (void)bytes;
#endif
}

static void make_counterparts(cp_type_t *t) {
  for (cp_slab_t *s = compact_all[t->id]; s; s = s->next_all) {
    cp_slab_t *w;
    if (s->kind == CP_SLAB) {
      w = cp__slab_new(&cp__wide_arena, t, s->cls, t->wide_slot, s->nslots,
                       false);
      w->bump = s->bump;
      w->used = s->used;
      w->nslots = s->nslots;
      populate(w, (uint64_t)w->bump * w->slot);
      memcpy(w->live, s->live, ((size_t)s->nslots + 63) / 64 * sizeof(uint64_t));
    } else {
      w = cp__block_new(&cp__wide_arena, t, t->wide_slot, s->count, false);
      populate(w, (uint64_t)w->count * w->slot);
    }
    w->seq = s->seq;
    s->counterpart = w;
    s->wide_start = w->start;
    s->wide_slot = w->slot;
    s->wide_elem = w->elem;
  }
}

/* The copy, parallel by slab: every compact slab or block is one item,
 * taken in order (slabs of a type together, so a worker's translation
 * cache stays warm) by the leader and, for a large heap, helper threads.
 * Items write disjoint wide slabs and only read the compact heap. */
typedef struct copy_job {
  cp_slab_t **items;
  size_t n;
  size_t next; /* atomic */
} copy_job_t;

enum { COPY_CHUNK = 8 };

static void copy_items(copy_job_t *j) {
  xlate_cache_t c;
  bool warm = false;
  uint64_t bc = 0, bw = 0;
  size_t i;
  while ((i = __atomic_fetch_add(&j->next, COPY_CHUNK, __ATOMIC_RELAXED)) < j->n) {
    for (size_t k = i; k < i + COPY_CHUNK && k < j->n; k++) {
      cp_slab_t *s = j->items[k];
      const cp_slab_t *w = s->counterpart;
      if (!warm) {
        xlate_refill(&c, s);
        warm = true;
      }
      copy_slab(s->type, s, &c);
      uint64_t objs =
          s->kind == CP_BLOCK ? s->count : (uint64_t)s->used * s->elems;
      __atomic_fetch_add(&s->type->switch_objects, objs, __ATOMIC_RELAXED);
      bc += objs * s->elem;
      bw += objs * w->elem;
    }
  }
  __atomic_fetch_add(&cp__switch_bytes_compact, bc, __ATOMIC_RELAXED);
  __atomic_fetch_add(&cp__switch_bytes_wide, bw, __ATOMIC_RELAXED);
}

static void *copy_helper(void *arg) {
  copy_items(arg);
  return NULL;
}

/* Copies every object; returns how many.  Helpers (threads of the
 * runtime's own, unknown to it, touching nothing but the two heaps) join
 * in when the compact heap holds more than cp__switch_parallel_bytes and
 * the machine has more than one processor. */
uint64_t cp__switch_parallel_bytes = (uint64_t)32 << 20;
static uint64_t copy_all(void) {
  size_t n = 0;
  for (uint32_t k = 0; k < cp__ntypes; k++) {
    cp__types[k]->switch_objects = 0;
    for (cp_slab_t *s = compact_all[k]; s; s = s->next_all)
      n++;
  }
  copy_job_t j = {malloc((n ? n : 1) * sizeof(cp_slab_t *)), n, 0};
  if (!j.items)
    cp__fatal("out of memory starting the switch");
  n = 0;
  for (uint32_t k = 0; k < cp__ntypes; k++)
    for (cp_slab_t *s = compact_all[k]; s; s = s->next_all)
      j.items[n++] = s;
  pthread_t helpers[7];
  int nh = 0;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (((uint64_t)cp__compact_arena.used_pages << CP_PAGE_SHIFT) >
      cp__switch_parallel_bytes)
    while (nh < 7 && nh + 1 < cpus &&
           pthread_create(&helpers[nh], NULL, copy_helper, &j) == 0)
      nh++;
  copy_items(&j);
  for (int h = 0; h < nh; h++)
    pthread_join(helpers[h], NULL);
  cp__switch_helpers = (uint32_t)nh;
  free(j.items);
  uint64_t objects = 0;
  for (uint32_t k = 0; k < cp__ntypes; k++)
    objects += cp__types[k]->switch_objects;
  return objects;
}

/* Moves t onto its wide slabs, in the same order, gives each to the heap
 * that owned its original (bins were emptied by cp__heaps_forget_slabs),
 * and frees the compact slab headers. */
static void adopt_counterparts(cp_type_t *t) {
  cp_slab_t *s = compact_all[t->id];
  t->all = NULL;
  cp_slab_t *tail = NULL;
  while (s) {
    cp_slab_t *next = s->next_all;
    cp_slab_t *w = s->counterpart;
    w->prev_all = tail;
    w->next_all = NULL;
    if (tail)
      tail->next_all = w;
    else
      t->all = w;
    tail = w;
    if (w->kind == CP_SLAB) {
      cp__slab_rebuild_free_list(w);
      uintptr_t o = s->owner & ~CP_OWNER_FLAGS;
      cp__heap_place((cp_heap_t *)o, w, o ? s->where : CP_IN_ORPHANS);
    }
    free(s);
    s = next;
  }
  t->slot = t->wide_slot;
}

static void translate_root(void **slot, cp_type_t *target, void *ctx) {
  (void)target;
  uint64_t *n = ctx;
  void *p = *slot;
  if (p && cp__arena_contains(&cp__compact_arena, p)) {
    *slot = cp__translate(p);
    (*n)++;
  }
}



/* Numbers every slab (the verifier's names) and brings it up to date. */
static void number_and_sync_slabs(void) {
  for (uint32_t k = 0; k < cp__ntypes; k++) {
    uint32_t seq = 0;
    for (cp_slab_t *s = cp__types[k]->all; s; s = s->next_all) {
      s->seq = seq++;
      cp__slab_sync(s);
    }
  }
}

static void compare_digests(const cp_digest_t *a, const cp_digest_t *b) {
  if (a->objects != b->objects || a->type_hash != b->type_hash)
    cp__fatal("verify: the switch changed the heap: %llu objects before, %llu "
              "after (or per-type counts differ)",
              (unsigned long long)a->objects, (unsigned long long)b->objects);
  if (a->hash != b->hash)
    cp__fatal("verify: the switch changed object contents or links "
              "(digest %016llx before, %016llx after)",
              (unsigned long long)a->hash, (unsigned long long)b->hash);
  if (a->roots != b->roots || a->root_hash != b->root_hash)
    cp__fatal("verify: the switch changed the roots (%llu before, %llu after)",
              (unsigned long long)a->roots, (unsigned long long)b->roots);
}

void cp__switch_run(const char *why) {
  cp__lock();
  cp__assert(!cp__wide);
  /* Every path here checks the build too; this is the last line: compact
   * code of a compact-only build has no wide body to continue in. */
  if (cp__build_known && cp__build == CP_BUILD_COMPACT_ONLY)
    cp__fatal("cannot switch to wide mode (%s): this program was built "
              "compact-only", why);
  bool verify = cp__option(CP_OPT_VERIFY) != 0;
  cp_digest_t before = {0}, after = {0};
  number_and_sync_slabs();
  if (verify)
    cp__verify_heap(&before, "before the switch");

  cp__heap_setup();
  double t1 = cp__now();
  cp__wide_arena_setup();
  compact_all = calloc(cp__ntypes ? cp__ntypes : 1, sizeof *compact_all);
  if (!compact_all)
    cp__fatal("out of memory starting the switch");
  for (uint32_t k = 0; k < cp__ntypes; k++) {
    compact_all[k] = cp__types[k]->all;
    cp__types[k]->all = NULL;
  }
  for (uint32_t k = 0; k < cp__ntypes; k++)
    make_counterparts(cp__types[k]);
  double t_alloc = cp__now();
  uint64_t objects = copy_all();
  double t_copy = cp__now();
  uint64_t roots = 0;
  cp__roots_each(translate_root, &roots);
  cp__heaps_forget_slabs();
  for (uint32_t k = 0; k < cp__ntypes; k++)
    adopt_counterparts(cp__types[k]);
  free(compact_all);
  compact_all = NULL;
  if (cp__arena_is_reserved(&cp__compact_arena)) {
    cp__arena_limit_seen = cp__compact_arena.span;
    cp__arena_peak_seen = cp__compact_arena.peak_pages << CP_PAGE_SHIFT;
    cp__slabmap_drop(&cp__compact_arena);
    cp__arena_destroy(&cp__compact_arena);
  }
  cp__wide = 1;
  cp__fast_update();
  cp__set_pending(0);
  double t2 = cp__now();
  cp__switch_phase[0] = t_alloc - t1;
  cp__switch_phase[1] = t_copy - t_alloc;
  cp__switch_phase[2] = t2 - t_copy;

  cp__switch_count_objects = objects;
  cp__switch_roots = roots;
  cp__switch_seconds = t2 - t1;
  switch_alloc_count = cp__allocs_so_far();
  cp__switch_at = t2;
  if (verify) {
    number_and_sync_slabs();
    cp__verify_heap(&after, "after the switch");
    compare_digests(&before, &after);
  }
  if (cp__option(CP_OPT_STATS)) {
    double s = cp__switch_seconds > 0 ? cp__switch_seconds : 1e-9;
    char threads[96] = "";
    int k = 0;
    if (cp__switch_threads > 1)
      k = snprintf(threads, sizeof threads, ", %u threads stopped",
                   cp__switch_threads);
    if (cp__switch_helpers)
      snprintf(threads + k, sizeof threads - (size_t)k, ", copied by %u threads",
               cp__switch_helpers + 1);
    fprintf(stderr,
            "compactptr: switch to wide mode (%s) after %llu allocations: "
            "moved %llu objects, %llu bytes compact -> %llu bytes wide, "
            "%llu roots, %.3f ms (%.2f GiB/s of compact heap; wide slabs "
            "%.3f ms, copy %.3f ms, roots and release %.3f ms)%s%s\n",
            why, (unsigned long long)switch_alloc_count,
            (unsigned long long)objects,
            (unsigned long long)cp__switch_bytes_compact,
            (unsigned long long)cp__switch_bytes_wide,
            (unsigned long long)roots, s * 1e3,
            (double)cp__switch_bytes_compact / s / (1u << 30),
            cp__switch_phase[0] * 1e3, cp__switch_phase[1] * 1e3,
            cp__switch_phase[2] * 1e3, threads, verify ? ", verified" : "");
  }
  if (verify || cp__option(CP_OPT_STATS))
    cp__report_integer_casts();
  cp__unlock();
}
