/*
 * switch.c - the switch: relocating the compact heap to wide layout.
 *
 * Steps (docs/switch.md), with every other thread stopped (safepoint.c):
 *   0. Bring every slab up to date: remote frees onto the free lists, and
 *      the live bitmap and `used` from bump and the free lists.
 *   1. Assign: every compact slab and block, in address order, gets a wide
 *      counterpart in the wide arena with the same number of slots, so
 *      every old slot has a known new address from slab sizes alone.  The
 *      translation table records them: per 64 KiB region of the compact
 *      arena, the class-0 slab there and its counterpart (below).
 *   2. Copy, slab by slab in address order: back the counterpart's pages
 *      (pages of compact chunks already copied, moved over, or fresh
 *      ones), copy every live object field by field with its type's copy
 *      program, translating each handle through the table, and give the
 *      source's memory back as soon as every slab of its 2 MiB chunk has
 *      been copied.  Translation reads metadata only (the table, the page
 *      map, slab headers), never a source object, so a chunk can go the
 *      moment its own slabs are done.  Slabs are independent: for a large
 *      heap helper threads take some of them.
 *   3. Translate every root: static root tables, registered slots, root
 *      arrays, every known thread's shadow-stack frames and the start
 *      arguments of threads not yet running.
 *   4. Rebuild the free lists of the wide slabs from the live bitmaps, so
 *      slots freed before the switch are reused after it, and give every
 *      wide slab to the heap that owned its compact original (orphans stay
 *      orphans).
 *   5. Release the compact arena and its metadata.
 *   6. Flip the mode.
 * Work is linear in slabs plus live objects plus roots; resident memory
 * stays near the wide heap's size, as compact chunks go while wide ones
 * fill.
 *
 * When: cp_switch_to_wide() runs it at once; crossing the high-water mark
 * makes it pending and the next legal safepoint runs it.  A safepoint is
 * legal when no compact body is active on its thread's stack
 * (cp__compact_depth == 0); safepoint.c then stops the other threads.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

uint64_t cp__switch_count_objects, cp__switch_bytes_compact,
    cp__switch_bytes_wide, cp__switch_roots;
double cp__switch_seconds, cp__switch_at;
uint64_t cp__arena_limit_seen, cp__arena_peak_seen;
double cp__switch_phase[CP_SWITCH_PHASES];
double cp__switch_copy_time[CP_COPY_PARTS];
uint64_t cp__switch_chunks_moved, cp__switch_chunks_returned;
uint64_t cp__switch_chunks_fresh, cp__switch_chunks_small;
uint32_t cp__switch_threads, cp__switch_helpers;
static uint64_t switch_alloc_count;
/* Per type: its compact slabs while the wide ones are made. */
static cp_slab_t **compact_all;

#define CHUNK_SHIFT CP_COMMIT_SHIFT
#define CHUNK_BYTES ((size_t)1 << CHUNK_SHIFT)

/* ---- the translation table ----------------------------------------------
 *
 * Dense, indexed by 64 KiB region of the compact arena: slabs are
 * buddy-aligned runs of 64 KiB or more, so a region holds at most one, and
 * its entry says everything a handle into a class-0 slab (single objects,
 * the bulk of every heap) needs: one load of a 32-byte entry, a multiply
 * by the slot size's reciprocal, and the counterpart's start plus the slot
 * index times the wide slot size.  No per-object table, no hash.  Entries
 * of regions without such a slab are zero and send the handle to the slow
 * path (arrays, blocks, interior pointers, a slab's first byte). */
typedef struct xl_entry {
  char *wstart;    /* the counterpart's start; NULL: no class-0 slab */
  uint64_t magic;  /* 2^64 / cslot + 1 */
  uint32_t cslot, wslot;
  uint32_t span;   /* bytes of the slab's slots (nslots * cslot) */
  uint32_t shift;  /* log2 of the run's bytes: its start is the address
                      rounded down (runs are aligned to their size) */
} xl_entry_t;
_Static_assert(sizeof(xl_entry_t) == 32, "two entries per cache line");

static struct {
  xl_entry_t *tab;
  size_t bytes;    /* of the mapping */
  uintptr_t base;  /* the compact arena's page 0 */
  uint64_t limit;  /* bytes the table covers */
} xl;

static void xl_init(const cp_arena_t *a) {
  xl.base = (uintptr_t)a->base;
  xl.limit = (uint64_t)a->npages << CP_PAGE_SHIFT;
  size_t n = (size_t)(xl.limit >> CP_SLAB_MIN_SHIFT) + 1;
  xl.bytes = (n * sizeof(xl_entry_t) + CP_PAGE_SIZE - 1) & ~(CP_PAGE_SIZE - 1);
  /* Zero-filled and touched only where slabs are: 0.05% of the heap. */
  xl.tab = cp__os_alloc_zeroed(xl.bytes);
  if (!xl.tab)
    cp__fatal_no_memory("cannot map %zu bytes for the switch's translation table",
              xl.bytes);
}

static void xl_add(const cp_slab_t *s, const cp_slab_t *w) {
  if (s->kind != CP_SLAB || s->elems != 1)
    return;
  uint32_t shift = s->order + CP_PAGE_SHIFT;
  xl_entry_t e = {w->start, s->magic, s->slot, w->slot,
                  (uint32_t)((uint64_t)s->nslots * s->slot), shift};
  uint64_t first = ((uintptr_t)s->start - xl.base) >> CP_SLAB_MIN_SHIFT;
  for (uint64_t r = 0; r < ((uint64_t)1 << shift) >> CP_SLAB_MIN_SHIFT; r++)
    xl.tab[first + r] = e;
}

static void xl_drop(void) {
  cp__os_free(xl.tab, xl.bytes);
  memset(&xl, 0, sizeof xl);
}

/* The slab a handle was last translated through on the slow path: those
 * handles mostly point into the same array or block as the one before. */
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

/* p, held by a root or a field of a compact type, is an object outside the
 * compact heap: a mapped address of user space neither in the arena nor inside
 * the image of a plugin-built module.  Anything else is a sentinel the
 * switch leaves alone: a small integer, a poison value (0xdead...), an
 * unmapped address, the address of a global used as a marker.  Such an
 * object was allocated by code the plugin could not route (an allocation
 * hook, a wrapper in another file), so it is in the compact layout, and
 * wide code would read it in the wide one. */
static bool foreign_object(const void *p) {
  uintptr_t a = (uintptr_t)p;
  unsigned char resident;
  /* Not below 2 MiB (the arena's guard and nothing else) and aligned as
   * any allocator aligns: a field of a slot another thread was taking off
   * the free list when the process forked holds the slot's free-list link
   * (a small offset) or its free marks (odd), not an object. */
  return a >= CP_LOW_START && (a & 3) == 0 && a < ((uintptr_t)1 << 47) &&
         !cp__arena_contains(&cp__compact_arena, p) && !cp__in_module_image(p) &&
         mincore((void *)(a & ~(uintptr_t)4095), 1, &resident) == 0;
}

/* A field naming such an object: possible where the arena is not alone
 * below the reach (a -no-pie executable, whose brk heap lies there too),
 * so the encode check let the store through. */
__attribute__((noreturn, cold, noinline)) static void foreign_field(const void *p) {
  cp__fatal("the switch to wide mode found a compact-pointer field holding %p, "
            "an object outside the compact heap: the runtime did not allocate "
            "it (an allocation hook or a wrapper in another file: declare it "
            "CP_ALLOCATOR; the plugin's -Wcompactptr-foreign-object warning "
            "says where), so it is in the compact layout and cannot be moved "
            "to the wide one", p);
}

/* Everything else: interior pointers, arrays, blocks, a run's first byte
 * (which may be one past the end of the block below), dangling handles.
 * Kept out of line so the fast path below inlines into the copy loops. */
__attribute__((noinline)) static void *xlate_slow(xlate_cache_t *c, char *p) {
  uint64_t off = (uint64_t)(p - c->cstart);
  if (off - 1 >= c->cspan - 1) {
    cp_slab_t *s = cp__slab_owning(&cp__compact_arena, p);
    if (!s && foreign_object(p))
      foreign_field(p);
    if (!s || !s->wide_start)
      return p; /* dangling: left as is (the verifier reports it) */
    xlate_refill(c, s);
    off = (uint64_t)(p - c->cstart);
  }
  uint64_t i = (uint64_t)(((unsigned __int128)off * c->magic) >> 64);
  uint64_t rem = off - i * c->cslot;
  char *q = c->wstart + i * c->wslot;
  uint64_t at;
  if (cp__flex_member(c->slab->type, rem, &at))
    return q + at; /* in a flexible array member */
  if (c->elems > 1) {
    uint64_t e = (uint64_t)(((unsigned __int128)rem * c->elem_magic) >> 64);
    rem -= e * c->celem;
    q += e * c->welem;
  }
  return rem == 0 ? q : q + cp__map_offset(c->slab->type, rem);
}

/* A handle's wide address.  The common case reads one table entry, with
 * nothing carried from one handle to the next, so the misses of
 * consecutive handles overlap.  Inlined into every loop that translates:
 * a call per handle costs as much as the lookup. */
__attribute__((always_inline)) static inline void *xlate(xlate_cache_t *c,
                                                         cp_handle_t h) {
  if (!h)
    return NULL;
  char *p = cp_decode(h);
  uint64_t off = (uint64_t)((uintptr_t)p - xl.base);
  if (CP_LIKELY(off < xl.limit)) {
    const xl_entry_t *e = &xl.tab[off >> CP_SLAB_MIN_SHIFT];
    uint64_t so = off & (((uint64_t)1 << e->shift) - 1);
    uint64_t i = (uint64_t)(((unsigned __int128)so * e->magic) >> 64);
    if (CP_LIKELY(so == i * e->cslot && so != 0 && so < e->span))
      return e->wstart + i * e->wslot;
  }
  return xlate_slow(c, p);
}

/* A slot-pointer field's value (CP_FIELD_SLOT): the address of a handle
 * field of a compact object becomes that field's address in the object's
 * wide copy; any other address (a native slot: a global, a local, a root
 * array's element) and NULL stay as they are. */
static inline void *xlate_slot_address(xlate_cache_t *c, void *p) {
  return p && cp__arena_contains(&cp__compact_arena, p) ? xlate_slow(c, p) : p;
}

/* Every set bit i of the 64-bit word `bits`, lowest first. */
#define FOR_EACH_BIT(bits, i, body)                                            \
  for (uint64_t b_ = (bits); b_; b_ &= b_ - 1) {                              \
    uint32_t i = (uint32_t)__builtin_ctzll(b_);                                \
    body                                                                       \
  }

/* Every live slot i of slab s (the verifier's walk). */
#define FOR_EACH_LIVE(s, i, body)                                              \
  for (uint32_t wd_ = 0; wd_ < ((s)->bump + 63) / 64; wd_++)                  \
    FOR_EACH_BIT((s)->live[wd_], j_, {                                         \
      uint32_t i = wd_ * 64 + j_;                                              \
      body                                                                     \
    })

/* Copies one field of each of the n elements of the array at src (element
 * size csz; emagic is 2^64 / csz + 1) to the array at dst (element size
 * wsz).  A handle to an element of the same array (a list threaded through
 * it) is translated here, by the element's index, without the table. */
static void copy_op(const cp_copy_op_t *op, const char *src, char *dst,
                    uint32_t csz, uint32_t wsz, uint64_t n, uint64_t emagic,
                    xlate_cache_t *c) {
  const char *base = src, *f = src + op->from;
  char *wbase = dst, *g = dst + op->to;
  if (op->kind == CP_FIELD_BYTES) {
    if (op->len == 4)
      for (uint64_t k = 0; k < n; k++)
        memcpy(g + k * wsz, f + k * csz, 4);
    else if (op->len == 8)
      for (uint64_t k = 0; k < n; k++)
        memcpy(g + k * wsz, f + k * csz, 8);
    else
      for (uint64_t k = 0; k < n; k++)
        memcpy(g + k * wsz, f + k * csz, op->len);
    return;
  }
  if (op->kind == CP_FIELD_SLOT) {
    for (uint64_t k = 0; k < n; k++)
      for (uint32_t j = 0; j < op->len; j++) {
        void *p;
        memcpy(&p, f + k * csz + j * sizeof p, sizeof p);
        p = xlate_slot_address(c, p);
        memcpy(g + k * wsz + j * sizeof p, &p, sizeof p);
      }
    return;
  }
  /* Offsets 1 .. n * csz - 1: the array's first byte may also be one past
   * the end of the run below, and its end the start of the next. */
  uint64_t span = n * csz;
  for (uint64_t k = 0; k < n; k++)
    for (uint32_t j = 0; j < op->len; j++) {
      cp_handle_t h;
      memcpy(&h, f + k * csz + j * sizeof h, sizeof h);
      uint64_t off = (uint64_t)((char *)cp_decode(h) - base);
      uint64_t e = (uint64_t)(((unsigned __int128)off * emagic) >> 64);
      void *q = h && off - 1 < span - 1 && off == e * csz ? wbase + e * wsz
                                                          : xlate(c, h);
      memcpy(g + k * wsz + j * sizeof q, &q, sizeof q);
    }
}

/* Copies the live slots among 64 consecutive slots of a slab (one word of
 * its live bitmap; bit i is the slot at src + i * cs) op by op
 * ("column-wise"), so the dispatch on an op's kind and length is paid once
 * per 64 objects, not once per object, while the 64 sources and
 * destinations (a few KiB) stay in the first-level cache from one op to
 * the next.  The common lengths get loops of their own, so a field is one
 * load and one store rather than a call. */
#define COPY_BYTES(n)                                                          \
  FOR_EACH_BIT(live, i, { memcpy(g + i * ws, f + i * cs, n); })

/* Copies an object of a type with a flexible array member, of k objects'
 * room: its fields, then the member's elements: bytes, compact pointers
 * translated one by one, or values copied by their type's program. */
static void copy_flex(const cp_type_t *t, const char *src, char *dst,
                      uint64_t k, xlate_cache_t *c) {
  for (uint32_t o = 0; o < t->nops; o++)
    copy_op(&t->ops[o], src, dst, t->desc->compact_size, t->desc->wide_size, 1,
            0, c);
  const char *f = src + t->flex_compact;
  char *g = dst + t->flex_wide;
  if (t->flex_kind == CP_FIELD_BYTES) {
    memcpy(g, f, cp__flex_bytes(t, k));
    return;
  }
  uint64_t n = cp__flex_elems(t, k);
  if (t->flex_kind == CP_FIELD_HANDLE) {
    for (uint64_t j = 0; j < n; j++) {
      cp_handle_t h;
      memcpy(&h, f + j * sizeof h, sizeof h);
      void *q = xlate(c, h);
      memcpy(g + j * sizeof q, &q, sizeof q);
    }
    return;
  }
  const cp_type_t *e = t->flex_target;
  for (uint32_t o = 0; o < e->nops; o++)
    copy_op(&e->ops[o], f, g, t->flex_celem, t->flex_welem, n, 0, c);
}

static void copy_group(const cp_type_t *t, uint64_t live, const char *src,
                       char *dst, size_t cs, size_t ws, uint32_t celem,
                       uint32_t welem, uint32_t elems, uint64_t emagic,
                       xlate_cache_t *c) {
  if (t->flex) {
    FOR_EACH_BIT(live, i,
                 { copy_flex(t, src + i * cs, dst + i * ws, elems, c); })
    return;
  }
  for (uint32_t o = 0; o < t->nops; o++) {
    const cp_copy_op_t *op = &t->ops[o];
    const char *f = src + op->from;
    char *g = dst + op->to;
    uint32_t len = op->len;
    if (elems > 1) { /* small arrays: one call per array */
      FOR_EACH_BIT(live, i, {
        copy_op(op, src + i * cs, dst + i * ws, celem, welem, elems, emagic,
                c);
      })
    } else if (op->kind == CP_FIELD_HANDLE && len == 1) {
      FOR_EACH_BIT(live, i, {
        cp_handle_t h;
        memcpy(&h, f + i * cs, sizeof h);
        void *q = xlate(c, h);
        memcpy(g + i * ws, &q, sizeof q);
      })
    } else if (op->kind == CP_FIELD_SLOT) {
      FOR_EACH_BIT(live, i, {
        copy_op(op, src + i * cs, dst + i * ws, (uint32_t)cs, (uint32_t)ws, 1,
                0, c);
      })
    } else if (op->kind == CP_FIELD_HANDLE) {
      FOR_EACH_BIT(live, i, {
        for (uint32_t j = 0; j < len; j++) {
          cp_handle_t h;
          memcpy(&h, f + i * cs + j * sizeof h, sizeof h);
          void *q = xlate(c, h);
          memcpy(g + i * ws + j * sizeof q, &q, sizeof q);
        }
      })
    } else if (len == 4) {
      COPY_BYTES(4)
    } else if (len == 8) {
      COPY_BYTES(8)
    } else if (len == 2) {
      COPY_BYTES(2)
    } else if (len == 1) {
      COPY_BYTES(1)
    } else if (len == 16) {
      COPY_BYTES(16)
    } else {
      COPY_BYTES(len)
    }
  }
}

static uint64_t used_bytes(const cp_slab_t *s);

/* Copies every live object of slab s to its counterpart.  `clear`: the
 * counterpart lies in moved pages that still hold compact data; each group
 * of 64 slots is zeroed just before its objects are copied in, while it is
 * in cache (padding and dead slots must read as zero, as on fresh pages). */
static void copy_slab(const cp_type_t *t, const cp_slab_t *s, xlate_cache_t *c,
                      bool clear) {
  const cp_slab_t *w = s->counterpart;
  if (s->kind == CP_BLOCK) {
    if (clear)
      memset(w->start, 0, used_bytes(w));
    if (t->flex) {
      copy_flex(t, s->start, w->start, s->count, c);
      return;
    }
    for (uint32_t o = 0; o < t->nops; o++)
      copy_op(&t->ops[o], s->start, w->start, s->elem, w->elem, s->count,
              s->elem_magic, c);
    return;
  }
  const size_t cs = s->slot, ws = w->slot;
  for (uint32_t wd = 0; wd < (s->bump + 63) / 64; wd++) {
    char *dst = w->start + (size_t)wd * 64 * ws;
    if (clear) {
      uint32_t n = s->bump - wd * 64;
      memset(dst, 0, (n < 64 ? n : 64) * ws);
    }
    uint64_t live = s->live[wd];
    if (live)
      copy_group(t, live, s->start + (size_t)wd * 64 * cs, dst, cs, ws, s->elem,
                 w->elem, s->elems, s->elem_magic, c);
  }
}

/* ---- memory: compact chunks out, wide chunks in ---------------------------
 *
 * The compact arena and the wide arena are both made of 2 MiB commit
 * chunks, backed by huge pages where THP allows.  Each compact chunk
 * counts the slabs and blocks whose runs overlap it and that are not yet
 * copied; when the count reaches zero nothing will read the chunk again
 * and it goes (chunk_gone).  A wide chunk is backed once, by the first
 * copy that needs it (back_chunk): with the pages of a compact chunk that
 * has gone, moved over by the kernel (no zeroing, no page faults, no huge
 * page to find), or, when none is waiting, with fresh pages.  Moved pages
 * hold old compact data, so a slab in one is cleared before its objects
 * are copied in (padding must read as zero, as on fresh pages); the slots
 * past its bump, and the chunk's unused runs, are cleared by the
 * allocation that hands them out, as every allocation does.
 *
 * Fresh pages.  The wide heap is larger than the compact one (twice, for
 * nodes of pointers), so about half its chunks need fresh memory.  A fresh
 * huge page is the cheapest when the kernel has one at hand (~10 GiB/s of
 * zeroing) and by far the dearest when it must compact memory or, in a
 * virtual machine, have the host back it (0.4-0.8 GiB/s measured on the
 * build machine).  4 KiB pages cost a fault each, and under a hypervisor
 * that shadows the page tables a second one at the first write from user
 * space, after MADV_POPULATE_WRITE has returned (0.4-0.6 GiB/s in all on
 * the build machine, whether or not the host had the memory at hand).  So
 * the copy measures what each kind really costs -- 4 KiB pages are
 * written once, one byte a page, right after they are populated, so that
 * second fault is counted where it is paid -- and uses the cheaper: huge
 * pages while they come at cp__switch_fresh_huge_min bytes per second or
 * more; below that, 4 KiB pages for a probe of FRESH_PROBE bytes (unless
 * they were measured dearer already), kept while they are cheaper than
 * huge pages were, with huge pages tried again after FRESH_REPROBE bytes,
 * twice as many after each try.  Chunks backed with 4 KiB pages are
 * advised for huge pages again after the copy, for khugepaged. */
enum { W_UNTOUCHED, W_BACKING, W_FRESH, W_FRESH_SMALL, W_MOVED };
enum { POOL_MAX = 8 };
uint64_t cp__switch_fresh_huge_min = (uint64_t)3 << 30; /* bytes per second */
#define FRESH_PROBE ((uint64_t)8 << 20)      /* bytes to judge a kind by */
#define FRESH_REPROBE ((uint64_t)128 << 20)  /* small-page bytes before a try */

static struct {
  uint32_t *cref;        /* per compact chunk: runs not yet copied */
  size_t cref_bytes;
  uint8_t *wstate;       /* per wide chunk: W_* (atomic) */
  size_t wstate_bytes;
  uint64_t wchunks;      /* entries of wstate */
  bool move;             /* the wide arena was empty: chunks may be moved in */
  pthread_mutex_t lock;  /* the pool */
  char *pool[POOL_MAX];  /* compact chunks that have gone, not yet moved */
  int npool;
  /* Fresh pages: the kind used now (atomic; changed under the lock), and
   * under the lock what the current probe window has cost, the last rate
   * measured of each kind (bytes per second, 0: not measured) and the
   * 4 KiB-page bytes until huge pages are tried again. */
  int small;
  uint64_t win_bytes, win_ns;
  double rate[2];
  uint64_t small_left, reprobe;
} mem = {.lock = PTHREAD_MUTEX_INITIALIZER};

static uint64_t run_bytes(const cp_slab_t *s) {
  return (uint64_t)1 << (s->order + CP_PAGE_SHIFT);
}

/* Bytes of s that hold slots ever handed out (or elements). */
static uint64_t used_bytes(const cp_slab_t *s) {
  return s->kind == CP_BLOCK ? s->count * s->elem : (uint64_t)s->bump * s->slot;
}

static void mem_init(const cp_arena_t *c, const cp_arena_t *w) {
  mem.cref_bytes = ((((size_t)c->npages << CP_PAGE_SHIFT) >> CHUNK_SHIFT) + 1) *
                   sizeof(uint32_t);
  mem.wchunks = (((uint64_t)w->npages << CP_PAGE_SHIFT) >> CHUNK_SHIFT) + 1;
  mem.wstate_bytes = (size_t)mem.wchunks;
  mem.cref = cp__os_alloc_zeroed(mem.cref_bytes);
  mem.wstate = cp__os_alloc_zeroed(mem.wstate_bytes);
  if (!mem.cref || !mem.wstate)
    cp__fatal_no_memory("cannot map the switch's chunk tables (%zu bytes)",
              mem.cref_bytes + mem.wstate_bytes);
  mem.move = w->used_pages == 0;
  mem.npool = 0;
  mem.small = 0;
  mem.win_bytes = mem.win_ns = 0;
  mem.rate[0] = mem.rate[1] = 0;
  mem.small_left = mem.reprobe = FRESH_REPROBE;
}

/* Wide chunks backed with small pages are advised for huge pages again
 * (khugepaged may collapse them later), and the tables go. */
static void mem_drop(void) {
  cp_arena_t *w = &cp__wide_arena;
  for (uint64_t k = 0; k < mem.wchunks; k++)
    if (mem.wstate[k] == W_FRESH_SMALL)
      cp__os_advise_pages(w->base + ((uintptr_t)k << CHUNK_SHIFT), CHUNK_BYTES,
                          true);
  cp__os_free(mem.cref, mem.cref_bytes);
  cp__os_free(mem.wstate, mem.wstate_bytes);
  mem.cref = NULL;
  mem.wstate = NULL;
}

static void chunks_of(const cp_arena_t *a, const void *p, uint64_t bytes,
                      uint64_t *first, uint64_t *last) {
  uintptr_t off = (uintptr_t)p - (uintptr_t)a->base;
  *first = off >> CHUNK_SHIFT;
  *last = (off + (bytes ? bytes : 1) - 1) >> CHUNK_SHIFT;
}

/* Compact chunk k will not be read again: into the pool, or back to the
 * kernel.  Only whole chunks of the managed range are moved. */
static void chunk_gone(uint64_t k) {
  cp_arena_t *a = &cp__compact_arena;
  uintptr_t lo = (uintptr_t)a->base + ((uintptr_t)k << CHUNK_SHIFT);
  uintptr_t hi = lo + CHUNK_BYTES, top = a->start + a->span;
  if (mem.move && lo >= a->start && hi <= top) {
    pthread_mutex_lock(&mem.lock);
    if (mem.npool < POOL_MAX) {
      mem.pool[mem.npool++] = (char *)lo;
      pthread_mutex_unlock(&mem.lock);
      return;
    }
    pthread_mutex_unlock(&mem.lock);
  }
  if (lo < a->start)
    lo = a->start;
  if (hi > top)
    hi = top;
  cp__os_decommit((void *)lo, hi - lo);
  __atomic_fetch_add(&cp__switch_chunks_returned, 1, __ATOMIC_RELAXED);
}

/* Source s has been copied: its chunks lose a reader. */
static void source_done(const cp_slab_t *s) {
  uint64_t k0, k1;
  chunks_of(&cp__compact_arena, s->start, run_bytes(s), &k0, &k1);
  for (uint64_t k = k0; k <= k1; k++)
    if (__atomic_sub_fetch(&mem.cref[k], 1, __ATOMIC_ACQ_REL) == 0)
      chunk_gone(k);
}

/* Fresh pages for wide chunk k at lo: of the kind in use (see above). */
static uint8_t fresh_chunk(uintptr_t lo) {
  __atomic_fetch_add(&cp__switch_chunks_fresh, 1, __ATOMIC_RELAXED);
  if (!__atomic_load_n(&mem.small, __ATOMIC_RELAXED))
    return W_FRESH;
  __atomic_fetch_add(&cp__switch_chunks_small, 1, __ATOMIC_RELAXED);
  cp__os_advise_pages((void *)lo, CHUNK_BYTES, false);
  return W_FRESH_SMALL;
}

/* Counts `bytes` of fresh pages of kind `small` that took `ns` to back, and
 * at the end of each probe window picks the kind of the next chunks. */
static void fresh_account(int small, uint64_t bytes, uint64_t ns) {
  pthread_mutex_lock(&mem.lock);
  if (small != mem.small) { /* a chunk backed before the last change */
    pthread_mutex_unlock(&mem.lock);
    return;
  }
  mem.win_bytes += bytes;
  mem.win_ns += ns;
  if (small)
    mem.small_left -= bytes < mem.small_left ? bytes : mem.small_left;
  if (mem.win_bytes >= FRESH_PROBE) {
    double r = (double)mem.win_bytes / ((double)mem.win_ns * 1e-9 + 1e-12);
    mem.rate[small] = r;
    mem.win_bytes = mem.win_ns = 0;
    int next = small;
    if (!small)
      next = r < (double)cp__switch_fresh_huge_min &&
             !(mem.rate[1] > 0 && mem.rate[1] <= r);
    else if (r < mem.rate[0] || mem.small_left == 0) {
      next = 0; /* dearer than huge pages were, or time to try them again */
      mem.reprobe *= 2;
      mem.small_left = mem.reprobe;
    }
    __atomic_store_n(&mem.small, next, __ATOMIC_RELAXED);
  }
  pthread_mutex_unlock(&mem.lock);
}

/* Backs wide chunk k; returns W_FRESH, W_FRESH_SMALL or W_MOVED. */
static uint8_t back_chunk(uint64_t k) {
  cp_arena_t *w = &cp__wide_arena;
  uintptr_t lo = (uintptr_t)w->base + ((uintptr_t)k << CHUNK_SHIFT);
  if (lo < w->start || lo + CHUNK_BYTES > w->start + w->span) {
    /* The first chunk holds page 0: fresh pages, left as they are. */
    __atomic_fetch_add(&cp__switch_chunks_fresh, 1, __ATOMIC_RELAXED);
    return W_FRESH;
  }
  char *from = NULL;
  if (mem.move) {
    pthread_mutex_lock(&mem.lock);
    from = mem.npool ? mem.pool[--mem.npool] : NULL;
    pthread_mutex_unlock(&mem.lock);
  }
  if (!from)
    return fresh_chunk(lo);
  if (cp__os_move(from, CHUNK_BYTES, (void *)lo)) {
    __atomic_fetch_add(&cp__switch_chunks_moved, 1, __ATOMIC_RELAXED);
    return W_MOVED;
  }
  cp__os_decommit(from, CHUNK_BYTES); /* the kernel refused: it just goes */
  __atomic_fetch_add(&cp__switch_chunks_returned, 1, __ATOMIC_RELAXED);
  return fresh_chunk(lo);
}

/* Faults in fresh pages for [p, p + bytes) of the given kind, and counts
 * what they cost.  4 KiB pages are written once each (a zero, on a zero
 * page) so a fault the hypervisor takes at the first write is counted
 * here, not in the copy. */
static void populate(char *p, uint64_t bytes, int small) {
  bytes = (bytes + CP_PAGE_SIZE - 1) & ~(uint64_t)(CP_PAGE_SIZE - 1);
  double t0 = cp__now();
  (void)cp__os_populate(p, bytes);
  if (small)
    for (uint64_t o = 0; o < bytes; o += CP_PAGE_SIZE)
      *(volatile char *)(p + o) = 0;
  fresh_account(small, bytes, (uint64_t)((cp__now() - t0) * 1e9));
}

/* Makes the used part of counterpart w writable memory.  Returns true if
 * it lies in moved pages, which hold old compact data the copy must clear;
 * fresh pages hold zeros. */
static bool back_counterpart(const cp_slab_t *w) {
  uint64_t bytes = used_bytes(w);
  if (!bytes)
    return false;
  uint64_t k0, k1;
  chunks_of(&cp__wide_arena, w->start, bytes, &k0, &k1);
  bool moved = false, small = false;
  for (uint64_t k = k0; k <= k1; k++) {
    uint8_t st = __atomic_load_n(&mem.wstate[k], __ATOMIC_ACQUIRE);
    while (st < W_FRESH) {
      uint8_t expect = W_UNTOUCHED;
      if (st == W_UNTOUCHED &&
          __atomic_compare_exchange_n(&mem.wstate[k], &expect, W_BACKING,
                                      false, __ATOMIC_ACQ_REL,
                                      __ATOMIC_ACQUIRE)) {
        st = back_chunk(k);
        __atomic_store_n(&mem.wstate[k], st, __ATOMIC_RELEASE);
        break;
      }
      sched_yield(); /* another copier is backing it: one system call */
      st = __atomic_load_n(&mem.wstate[k], __ATOMIC_ACQUIRE);
    }
    moved |= st == W_MOVED;
    small |= st == W_FRESH_SMALL;
  }
  if (moved)
    return true;
  populate(w->start, bytes, small);
  return false;
}

/* ---- step 1: assign ------------------------------------------------------ */

static int by_address(const void *a, const void *b) {
  const cp_slab_t *x = *(cp_slab_t *const *)a, *y = *(cp_slab_t *const *)b;
  return (x->start > y->start) - (x->start < y->start);
}

/* Every compact slab and block, in address order: the copy goes through
 * the compact arena from bottom to top, so its chunks go in order, and the
 * counterparts are allocated in that order too (the buddy hands out low
 * runs first), so the wide heap fills from its bottom as the copy
 * advances. */
static cp_slab_t **sorted_items(size_t *np) {
  size_t n = 0;
  for (uint32_t k = 0; k < cp__ntypes; k++)
    for (cp_slab_t *s = compact_all[k]; s; s = s->next_all)
      n++;
  cp_slab_t **items = malloc((n ? n : 1) * sizeof *items);
  if (!items)
    cp__fatal("out of memory starting the switch");
  n = 0;
  for (uint32_t k = 0; k < cp__ntypes; k++)
    for (cp_slab_t *s = compact_all[k]; s; s = s->next_all)
      items[n++] = s;
  qsort(items, n, sizeof *items, by_address);
  *np = n;
  return items;
}

static void make_counterpart(cp_slab_t *s) {
  cp_type_t *t = s->type;
  cp_slab_t *w;
  if (s->kind == CP_SLAB) {
    w = cp__slab_new(&cp__wide_arena, t, s->cls, t->wide_slot, s->nslots,
                     false);
    w->bump = s->bump;
    w->bump_end = s->bump * w->slot;
    w->used = s->used;
    w->nslots = s->nslots;
    memcpy(cp__slab_live_bits(w), cp__slab_live_bits(s),
           ((size_t)s->nslots + 63) / 64 * sizeof(uint64_t));
  } else {
    w = cp__block_new(&cp__wide_arena, t, t->wide_slot, s->count, false, false);
  }
  w->seq = s->seq;
  s->counterpart = w;
  s->wide_start = w->start;
  s->wide_slot = w->slot;
  s->wide_elem = w->elem;
}

/* Counterparts, the translation table and the chunk counts.  Compact
 * chunks that hold no slab (their slabs were freed before the switch) go
 * at once. */
static void assign(cp_slab_t **items, size_t n) {
  xl_init(&cp__compact_arena);
  mem_init(&cp__compact_arena, &cp__wide_arena);
  for (size_t i = 0; i < n; i++) {
    cp_slab_t *s = items[i];
    make_counterpart(s);
    xl_add(s, s->counterpart);
    uint64_t k0, k1;
    chunks_of(&cp__compact_arena, s->start, run_bytes(s), &k0, &k1);
    for (uint64_t k = k0; k <= k1; k++)
      mem.cref[k]++;
  }
  const cp_arena_t *a = &cp__compact_arena;
  uint64_t nchunks = (((uint64_t)a->npages << CP_PAGE_SHIFT) + CHUNK_BYTES - 1) >>
                     CHUNK_SHIFT;
  for (uint64_t k = 0; k < nchunks; k++)
    if (a->committed[k] && mem.cref[k] == 0)
      chunk_gone(k);
}

/* COMPACTPTR_VERIFY: the table agrees with the page map's translation for
 * the start and the second field position (4 bytes, or the granule if
 * larger) of every live object of every class-0 slab, and for every such
 * position of the first live object of each. */
static void xl_check(cp_slab_t **items, size_t n) {
  xlate_cache_t c;
  if (n)
    xlate_refill(&c, items[0]);
  for (size_t k = 0; k < n; k++) {
    cp_slab_t *s = items[k];
    if (s->kind != CP_SLAB || s->elems != 1)
      continue;
    bool first = true;
    FOR_EACH_LIVE(s, i, {
      char *p = s->start + (size_t)i * s->slot;
      /* Handle fields start at multiples of 4 bytes whatever the
       * granule. */
      const uint32_t step = CP_GRANULE > 4 ? (uint32_t)CP_GRANULE : 4;
      uint32_t upto = first ? s->type->desc->compact_size : 2 * step;
      first = false;
      for (uint32_t g = 0; g < upto && g < s->type->desc->compact_size;
           g += step) {
        void *want = cp__translate(p + g);
        void *got = xlate(&c, (cp_handle_t)((uintptr_t)(p + g) >> CP_GRANULE_SHIFT));
        if (got != want)
          cp__fatal("verify: the switch's translation table maps %p (a '%s' "
                    "object) to %p, the page map to %p", (void *)(p + g),
                    s->type->desc->name, got, want);
      }
    })
  }
}

/* ---- step 2: the copy ----------------------------------------------------
 *
 * Parallel by slab: every compact slab or block is one item, taken in
 * address order in groups of COPY_GROUP from a shared counter by the
 * thread running the switch and its helpers.  Items write disjoint wide
 * slabs and read only their own source and the translation metadata. */
typedef struct copy_job {
  cp_slab_t **items;
  size_t n;
  size_t next; /* atomic */
} copy_job_t;

enum { COPY_GROUP = 4 };

static void copy_items(copy_job_t *j) {
  xlate_cache_t c;
  bool warm = false;
  uint64_t bc = 0, bw = 0;
  double spent[CP_COPY_PARTS] = {0};
  size_t i;
  while ((i = __atomic_fetch_add(&j->next, COPY_GROUP, __ATOMIC_RELAXED)) < j->n) {
    for (size_t k = i; k < i + COPY_GROUP && k < j->n; k++) {
      cp_slab_t *s = j->items[k];
      cp_slab_t *w = s->counterpart;
      if (!warm) {
        xlate_refill(&c, s);
        warm = true;
      }
      /* The monotonic clock (a read of shared memory): a thread's CPU
       * clock is a system call, 1.5 us each on the build machine, which
       * cost a sixth of the copy at three reads per slab. */
      double t0 = cp__now();
      bool clear = back_counterpart(w);
      double t1 = cp__now();
      copy_slab(s->type, s, &c, clear);
      /* Here rather than when the slab is adopted: in parallel, and
       * while its memory is in the cache. */
      if (w->kind == CP_SLAB)
        cp__slab_rebuild_free_list(w);
      double t2 = cp__now();
      source_done(s);
      double t3 = cp__now();
      spent[0] += t1 - t0;
      spent[1] += t2 - t1;
      spent[2] += t3 - t2;
      uint64_t objs =
          s->kind == CP_BLOCK ? s->count : (uint64_t)s->used * s->elems;
      __atomic_fetch_add(&s->type->switch_objects, objs, __ATOMIC_RELAXED);
      bc += objs * s->elem;
      bw += objs * w->elem;
    }
  }
  __atomic_fetch_add(&cp__switch_bytes_compact, bc, __ATOMIC_RELAXED);
  __atomic_fetch_add(&cp__switch_bytes_wide, bw, __ATOMIC_RELAXED);
  pthread_mutex_lock(&mem.lock);
  for (int p = 0; p < CP_COPY_PARTS; p++)
    cp__switch_copy_time[p] += spent[p];
  pthread_mutex_unlock(&mem.lock);
}

static void *copy_helper(void *arg) {
  copy_items(arg);
  return NULL;
}

/* Threads that copy: COMPACTPTR_SWITCH_THREADS, or one per processor up
 * to 8; one for a heap of cp__switch_parallel_bytes or less, where
 * starting threads costs more than it saves. */
uint64_t cp__switch_parallel_bytes = (uint64_t)32 << 20;
static int copy_threads(void) {
  if (((uint64_t)cp__compact_arena.used_pages << CP_PAGE_SHIFT) <=
      cp__switch_parallel_bytes)
    return 1;
  uint64_t knob = cp__option(CP_OPT_SWITCH_THREADS);
  if (knob)
    return (int)knob;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  return cpus < 1 ? 1 : cpus > 8 ? 8 : (int)cpus;
}

/* Copies every object; returns how many.  Helpers are threads of the
 * runtime's own, unknown to it, touching nothing but the two heaps. */
static uint64_t copy_all(cp_slab_t **items, size_t n) {
  for (uint32_t k = 0; k < cp__ntypes; k++)
    cp__types[k]->switch_objects = 0;
  memset(cp__switch_copy_time, 0, sizeof cp__switch_copy_time);
  copy_job_t j = {items, n, 0};
  pthread_t helpers[63];
  int nh = 0, want = copy_threads() - 1;
  while (nh < want && pthread_create(&helpers[nh], NULL, copy_helper, &j) == 0)
    nh++;
  copy_items(&j);
  for (int h = 0; h < nh; h++)
    pthread_join(helpers[h], NULL);
  cp__switch_helpers = (uint32_t)nh;
  uint64_t objects = 0;
  for (uint32_t k = 0; k < cp__ntypes; k++)
    objects += cp__types[k]->switch_objects;
  return objects;
}

/* Moves t onto its wide slabs, in the same order, gives each to the heap
 * that owned its original (bins were emptied by cp__heaps_forget_slabs),
 * and frees the compact slab headers. */
static void adopt_counterparts(cp_type_t *t) {
  /* The copy counted t's live objects: a count for its peak too. */
  if ((int64_t)t->switch_objects > t->peak_seen)
    t->peak_seen = (int64_t)t->switch_objects;
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
      uintptr_t o = s->owner & ~CP_OWNER_FLAGS;
      cp__heap_place((cp_heap_t *)o, w, o ? s->where : CP_IN_ORPHANS);
    }
    cp__slab_header_free(s);
    s = next;
  }
  t->slot = t->wide_slot;
}

static void translate_root(void **slot, cp_type_t *target, const char *name,
                           void *ctx) {
  uint64_t *n = ctx;
  void *p = *slot;
  /* A container_of of a member that is no element (the list head at the
   * end of a loop) moves with the member: its wide offset differs. */
  const cp_field_desc_t *f =
      p && target ? cp__container_member(&cp__compact_arena, p, target, false)
                  : NULL;
  if (f) {
    *slot = (char *)cp__translate((char *)p + f->compact_offset) -
            f->wide_offset;
    (*n)++;
  } else if (p && cp__arena_contains(&cp__compact_arena, p)) {
    *slot = cp__translate(p);
    (*n)++;
  } else if (p && target && foreign_object(p)) {
    cp__fatal("the switch to wide mode found %s%s%s, a pointer to '%s', holding "
              "%p, an object outside the compact heap: the runtime did not "
              "allocate it (an allocation hook or a wrapper in another file: "
              "declare it CP_ALLOCATOR; the plugin's -Wcompactptr-foreign-"
              "object warning says where), so it is in the compact layout and "
              "cannot be moved to the wide one",
              name ? "the root '" : "a root", name ? name : "", name ? "'" : "",
              target->desc->name, p);
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
  size_t n;
  cp_slab_t **items = sorted_items(&n);
  bool have_arena = cp__arena_is_reserved(&cp__compact_arena);
  if (have_arena)
    assign(items, n);
  if (verify && have_arena)
    xl_check(items, n);
  double t_assign = cp__now();
  uint64_t objects = copy_all(items, n);
  free(items);
  double t_copy = cp__now();
  uint64_t roots = 0;
  cp__roots_each(translate_root, &roots);
  double t_roots = cp__now();
  cp__heaps_forget_slabs();
  for (uint32_t k = 0; k < cp__ntypes; k++)
    adopt_counterparts(cp__types[k]);
  free(compact_all);
  compact_all = NULL;
  if (have_arena) {
    xl_drop();
    mem_drop();
    cp__arena_limit_seen = cp__compact_arena.span;
    cp__arena_peak_seen = cp__compact_arena.peak_pages << CP_PAGE_SHIFT;
    cp__slabmap_drop(&cp__compact_arena);
    cp__compact_arena_retire(&cp__compact_arena);
  }
  cp__wide = 1;
  cp__fast_update();
  cp__set_pending(0);
  double t2 = cp__now();
  cp__switch_phase[0] = t_assign - t1;
  cp__switch_phase[1] = t_copy - t_assign;
  cp__switch_phase[2] = t_roots - t_copy;
  cp__switch_phase[3] = t2 - t_roots;

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
            "%.3f ms, copy %.3f ms, roots %.3f ms, release %.3f ms)%s%s\n",
            why, (unsigned long long)switch_alloc_count,
            (unsigned long long)objects,
            (unsigned long long)cp__switch_bytes_compact,
            (unsigned long long)cp__switch_bytes_wide,
            (unsigned long long)roots, s * 1e3,
            (double)cp__switch_bytes_compact / s / (1u << 30),
            cp__switch_phase[0] * 1e3, cp__switch_phase[1] * 1e3,
            cp__switch_phase[2] * 1e3, cp__switch_phase[3] * 1e3, threads,
            verify ? ", verified" : "");
    fprintf(stderr,
            "compactptr: switch copy: %llu compact chunks of 2 MiB moved "
            "into the wide heap, %llu returned to the kernel, %llu wide "
            "chunks of fresh pages (%llu of them 4 KiB pages); thread time "
            "%.3f ms backing wide pages, %.3f ms copying objects, %.3f ms "
            "giving chunks back\n",
            (unsigned long long)cp__switch_chunks_moved,
            (unsigned long long)cp__switch_chunks_returned,
            (unsigned long long)cp__switch_chunks_fresh,
            (unsigned long long)cp__switch_chunks_small,
            cp__switch_copy_time[0] * 1e3, cp__switch_copy_time[1] * 1e3,
            cp__switch_copy_time[2] * 1e3);
  }
  /* Always, not only under STATS: a value the program turns back into a
   * pointer after the switch (an XOR-linked list, a table keyed by
   * address) gives a wrong result without any fault to stop it. */
  cp__report_integer_casts();
  cp__unlock();
}
