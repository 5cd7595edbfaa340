/*
 * internal.h - types, configuration and cross-file prototypes of the
 * compactptr runtime.  Public API: include/compactptr.h.
 *
 * Debug levels (CP_DEBUG_LEVEL, set at build time):
 *   0  cheap checks only: every public entry validates what it is given
 *      (foreign and double frees, bad handles with COMPACTPTR_DEBUG=1).
 *   1  internal asserts (cp__assert) on invariants that cost O(1).
 *   2  expensive walks (cp__buddy_is_valid, cp__slab_is_valid) at entry and
 *      exit of operations; used by the unit tests.
 * Failure paths never allocate.
 */
#ifndef CP_INTERNAL_H
#define CP_INTERNAL_H

#ifndef COMPACTPTR_RUNTIME
#define COMPACTPTR_RUNTIME 1
#endif
#include "compactptr.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifndef CP_DEBUG_LEVEL
#define CP_DEBUG_LEVEL 0
#endif

#define CP_LIKELY(x) __builtin_expect(!!(x), 1)
#define CP_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Pages are the buddy allocator's unit and the page map's index. */
#define CP_PAGE_SHIFT 12
#define CP_PAGE_SIZE ((size_t)1 << CP_PAGE_SHIFT)
/* Arena memory is made accessible in chunks of this size. */
#define CP_COMMIT_SHIFT 21
/* A slab spans at least this many bytes... */
#define CP_SLAB_MIN_SHIFT 16
/* ...and holds at least this many slots, unless the object is large. */
#define CP_SLAB_MIN_SLOTS 16
/* Objects larger than this get a block of their own. */
#define CP_LARGE_OBJECT ((size_t)64 << 10)
#define CP_NONE UINT32_MAX
/* Size classes of a type's slabs: class 0 holds single objects, class k
 * holds heap arrays of up to 2^k elements (one array per slot) as long as
 * the array fits in CP_SMALL_ARRAY bytes; larger arrays get a block. */
#define CP_NCLASSES 12
#define CP_SMALL_ARRAY ((size_t)8 << 10)

#if CP_DEBUG_LEVEL >= 1
#define cp__assert(c)                                                          \
  ((c) ? (void)0 : cp__fatal("internal error: %s (%s:%d)", #c, __FILE__, __LINE__))
#else
#define cp__assert(c) ((void)0)
#endif

/* ---- options (options.c) ---------------------------------------------- */
typedef enum cp_option_id {
  CP_OPT_ARENA_LIMIT,  /* bytes the compact arena may hand out */
  CP_OPT_HIGH_WATER,   /* percent of the limit that makes the switch pending */
  CP_OPT_STATS,        /* print statistics at exit */
  CP_OPT_VERIFY,       /* walk and digest the heap around the switch */
  CP_OPT_DEBUG,        /* checked decode, free validation messages */
  CP_OPT_WIDE_RESERVE, /* bytes of address space reserved for wide mode */
  CP_OPT_COUNT
} cp_option_id_t;

uint64_t cp__option(cp_option_id_t id);
void cp__options_init(void);
/* Parses "123", "64K", "16M", "2G", "1T" (binary units); -1 on error. */
int cp__parse_size(const char *s, uint64_t *out);
/* The mixed-build check's report (include/compactptr.h); never returns. */
CP_API void cp__plain_unit(const char *source);
/* The compact arena's bounds, for the gdb extension (debugger.c). */
extern uintptr_t cp__debug_arena_start, cp__debug_arena_end;

/* ---- os (os.c) ---------------------------------------------------------- */
_Noreturn void cp__fatal(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
void *cp__os_reserve(size_t bytes);           /* PROT_NONE; NULL on failure */
/* PROT_NONE at exactly addr, or NULL if anything is mapped there. */
void *cp__os_reserve_at(uintptr_t addr, size_t bytes);
/* The largest unmapped gap in [lo, hi) from /proc/self/maps (2 MiB
 * aligned; a GiB above the program break left for the brk heap); false if
 * none or /proc is unreadable. */
bool cp__os_largest_gap(uintptr_t lo, uintptr_t hi, uintptr_t *start,
                        size_t *bytes);
/* Bytes of address space the process may still map under RLIMIT_AS
 * (ulimit -v), and the limit in *limit; UINT64_MAX and 0 when unlimited. */
uint64_t cp__os_address_space_free(uint64_t *limit);
bool cp__os_commit(void *p, size_t bytes);    /* make read/write */
/* Transparent huge pages for committed memory (MADV_HUGEPAGE) or not
 * (MADV_NOHUGEPAGE); advice, never an error. */
void cp__os_advise_pages(void *p, size_t bytes, bool huge);
void cp__os_decommit(void *p, size_t bytes);  /* drop contents, keep access */
void cp__os_release(void *p, size_t bytes);
void *cp__os_alloc_zeroed(size_t bytes);      /* metadata; NULL on failure */
void cp__os_free(void *p, size_t bytes);
double cp__now(void);                         /* seconds, CLOCK_MONOTONIC */

/* ---- arena and buddy (arena.c, buddy.c) --------------------------------- */
struct cp_slab;

typedef struct cp_arena {
  char *base;              /* reserved start (page 0) */
  size_t reserved;         /* bytes reserved */
  uintptr_t start;         /* address of page first_page */
  size_t span;             /* bytes from start to page npages */
  uint32_t npages;         /* pages the buddy manages: the limit */
  uint32_t first_page;     /* pages below are never handed out */
  uint32_t max_order;
  struct cp_slab **pagemap;/* per page: owning slab or block, or NULL */
  uint8_t *order;          /* per page: block order | CP_BUDDY_FREE on heads */
  uint32_t *link_next, *link_prev; /* free-list links per head page */
  uint32_t free_head[33];  /* per order: first free head page or CP_NONE */
  uint8_t *committed;      /* per commit chunk: 1 if accessible */
  size_t meta_bytes;       /* bytes of the metadata mapping */
  void *meta;
  uint64_t used_pages, peak_pages;
  uint64_t committed_bytes;
  uint64_t high_water_pages; /* 0: none */
  bool wide;
} cp_arena_t;

#define CP_BUDDY_FREE 0x80u

/* Reserves `reserve` bytes anywhere and manages the first `limit` of them
 * (pages below first_page are never handed out); false if the kernel
 * refuses the reservation or the metadata. */
bool cp__arena_init(cp_arena_t *a, size_t reserve, size_t limit,
                    uint32_t first_page, bool wide);
void cp__arena_destroy(cp_arena_t *a);
/* Is p in the part of the arena that can hold objects? */
static inline bool cp__arena_contains(const cp_arena_t *a, const void *p) {
  return (uintptr_t)p - a->start < a->span;
}
static inline bool cp__arena_is_reserved(const cp_arena_t *a) {
  return a->reserved != 0;
}
static inline uint32_t cp__arena_page(const cp_arena_t *a, const void *p) {
  return (uint32_t)(((uintptr_t)p - (uintptr_t)a->base) >> CP_PAGE_SHIFT);
}
static inline char *cp__arena_addr(const cp_arena_t *a, uint32_t page) {
  return (char *)((uintptr_t)a->base + ((uintptr_t)page << CP_PAGE_SHIFT));
}

/* The compact arena's address range, chosen and reserved once at load
 * time (cp__compact_reserve, from the runtime's constructor) so that it
 * never moves.  Handles are zero-based, so the range lies below the reach
 * (2^32 granules): just above 2 MiB when that is free (position-independent
 * executables), else in the largest free gap below the reach (executables
 * linked at a fixed address, sanitizers, valgrind), smaller than asked if
 * need be.  With no room at all, a switchable program runs in wide mode
 * from the start and a compact-only one stops. */
typedef struct cp_reservation {
  bool done;             /* cp__compact_reserve ran */
  bool ok;               /* the range is reserved */
  bool low;              /* at 2 MiB (else in the largest gap) */
  char *lo;              /* reserved range */
  size_t bytes;
  uint64_t limit;        /* bytes asked for: COMPACTPTR_ARENA_LIMIT */
  uint64_t as_limit;     /* RLIMIT_AS in bytes; 0 when unlimited */
  uint64_t as_free;      /* bytes of it free at load time */
  bool shrunk_as;        /* RLIMIT_AS made the arena smaller than asked */
  bool shrunk_gap;       /* the free gap did */
} cp_reservation_t;
extern cp_reservation_t cp__reservation;
void cp__compact_reserve(void);
/* Sets up the compact arena's metadata over the reservation; false if
 * there is none (then a switchable program runs in wide mode), fatal if
 * there is one but its metadata cannot be mapped. */
bool cp__compact_arena_adopt(cp_arena_t *a);
/* Fatal: no compact arena in a compact-only program; one line naming the
 * address-space limit or what occupies the range below the reach. */
_Noreturn void cp__compact_arena_missing(void);
/* Gives the reservation back (a wide build never uses it). */
void cp__compact_reserve_release(void);
/* Reserves the wide arena: COMPACTPTR_WIDE_RESERVE, or less where the
 * address-space limit or the environment (valgrind) allows less, but at
 * least room for what the compact arena holds; fatal otherwise. */
void cp__wide_arena_reserve(cp_arena_t *a);
/* " (…)" naming the address-space limit that shrank arena a, or "":
 * appended to exhaustion messages. */
const char *cp__arena_limit_note(const cp_arena_t *a);
/* One STATS line: where the compact arena is and why there. */
void cp__arena_describe(FILE *f);
/* Returns the first page of a free run of 2^order pages, committed, or
 * CP_NONE if none is left. */
uint32_t cp__buddy_alloc(cp_arena_t *a, uint32_t order);
void cp__buddy_free(cp_arena_t *a, uint32_t page, uint32_t order);
bool cp__buddy_is_valid(const cp_arena_t *a);
uint32_t cp__order_for_bytes(size_t bytes);

/* ---- types and descriptors (descriptor.c) ------------------------------- */
typedef struct cp_copy_op {
  uint32_t kind;      /* CP_FIELD_BYTES or CP_FIELD_HANDLE (flattened) */
  uint32_t from, to;  /* compact and wide byte offsets */
  uint32_t len;       /* BYTES: bytes; HANDLE: handles */
  struct cp_type *target; /* HANDLE: pointee type, or NULL */
} cp_copy_op_t;

typedef struct cp_type {
  cp_type_desc_t *desc;      /* the first descriptor seen with this name */
  uint32_t id;               /* index in the registry */
  uint32_t compact_slot, wide_slot; /* slot sizes in bytes */
  uint32_t slot;             /* slot size of the current mode */
  struct cp_slab *avail[CP_NCLASSES]; /* per class: slabs with free slots */
  struct cp_slab *all;       /* every slab and block (current mode) */
  /* flattened field program for the switch and verification */
  cp_copy_op_t *ops;
  uint32_t nops;
  /* statistics; bytes are objects times the current slot size */
  uint64_t live, peak, allocs, frees;
  uint64_t switch_objects;
} cp_type_t;

/* Statistics change only through these. */
#define CP_STAT_ALLOC(t, n)                                                    \
  do {                                                                         \
    (t)->allocs += (n);                                                        \
    (t)->live += (n);                                                          \
    if ((t)->live > (t)->peak)                                                 \
      (t)->peak = (t)->live;                                                   \
  } while (0)
#define CP_STAT_FREE(t, n)                                                     \
  do {                                                                         \
    (t)->frees += (n);                                                         \
    (t)->live -= (n);                                                          \
  } while (0)

extern cp_type_t **cp__types;
extern uint32_t cp__ntypes;
cp_type_t *cp__type_resolve(cp_type_desc_t *d);
void cp__module_register(cp_module_t *m);
extern cp_module_t *cp__modules;

/* ---- slabs and blocks (slab.c) ------------------------------------------ */
typedef enum { CP_SLAB = 0, CP_BLOCK = 1 } cp_slab_kind_t;

typedef struct cp_slab {
  /* First cache line: everything address translation reads. */
  char *start;
  uint64_t magic;        /* 2^64 / slot + 1: slot index without a divide */
  uint64_t elem_magic;   /* 2^64 / elem + 1 */
  uint32_t slot;         /* SLAB: bytes per slot (elems * elem); BLOCK: elem */
  uint32_t elem;         /* bytes per element, in this slab's layout */
  uint32_t elems;        /* SLAB: elements per slot (1 or 2^cls) */
  uint32_t nslots;       /* SLAB: capacity; BLOCK: 1 */
  char *wide_start;      /* during the switch: the counterpart's start, */
  uint32_t wide_slot;    /* slot and element sizes */
  uint32_t wide_elem;
  uint8_t kind;          /* cp_slab_kind_t */
  uint8_t cls;           /* SLAB: size class */
  uint8_t in_avail;
  uint8_t wide;
  /* The rest. */
  cp_type_t *type;
  uint64_t count;        /* BLOCK: elements; SLAB: 1 */
  uint32_t bump;         /* SLAB: slots ever handed out (prefix) */
  uint32_t used;         /* SLAB: live slots; BLOCK: 1 */
  uint32_t free_head;    /* SLAB: index of the first free slot or CP_NONE;
                            each free slot holds the next index */
  uint32_t page;         /* first page in its arena */
  uint8_t order;         /* buddy order of the run */
  uint32_t seq;          /* position in the type's list, for the verifier */
  struct cp_slab *next_avail, *prev_avail;
  struct cp_slab *next_all, *prev_all;
  struct cp_slab *counterpart; /* during the switch: the wide slab */
  uint64_t *live;        /* SLAB: one bit per slot */
} cp_slab_t;
_Static_assert(offsetof(cp_slab_t, type) <= 64,
               "translation fields fit one cache line");

static inline uint64_t cp__slot_magic(uint32_t slot) {
  return UINT64_MAX / slot + 1;
}
/* offset / slot, exact for every offset below 2^64 / slot. */
static inline uint64_t cp__slot_index(const cp_slab_t *s, uint64_t off) {
  return (uint64_t)(((unsigned __int128)off * s->magic) >> 64);
}
static inline bool cp__slot_is_live(const cp_slab_t *s, uint32_t i) {
  return (s->live[i >> 6] >> (i & 63)) & 1;
}
static inline uint64_t cp__elem_index(const cp_slab_t *s, uint64_t off) {
  return (uint64_t)(((unsigned __int128)off * s->elem_magic) >> 64);
}

/* Where an offset into slab or block s falls: slot index, element within
 * the slot (or block), and byte offset within that element. */
typedef struct cp_place {
  uint64_t slot, elem, rem;
} cp_place_t;
static inline cp_place_t cp__slab_locate(const cp_slab_t *s, uint64_t off) {
  cp_place_t pl = {0, 0, off};
  if (s->kind == CP_SLAB) {
    pl.slot = cp__slot_index(s, off);
    pl.rem = off - pl.slot * s->slot;
  }
  if (s->kind == CP_BLOCK || s->elems > 1) {
    pl.elem = cp__elem_index(s, pl.rem);
    pl.rem -= pl.elem * s->elem;
  }
  return pl;
}

/* Slow path of cp__slab_take: an object (cls 0) or a small array of
 * 2^cls elements from a new slab. */
void *cp__alloc_in(cp_arena_t *a, cp_type_t *t, uint32_t cls, bool try_only);
void *cp__alloc_block_in(cp_arena_t *a, cp_type_t *t, uint64_t n,
                         bool try_only);
/* A slab of nslots slots of 2^cls elements of elem bytes. */
cp_slab_t *cp__slab_new(cp_arena_t *a, cp_type_t *t, uint32_t cls,
                        uint32_t elem, uint32_t nslots, bool try_only);
cp_slab_t *cp__block_new(cp_arena_t *a, cp_type_t *t, uint32_t elem,
                         uint64_t count, bool try_only);
/* Bytes of a slot of 2^cls elements of elem bytes: a multiple of 4, so a
 * free slot holds its free-list link and cp__zero_slot works.  Compact
 * elements are granules already; a wide element is the C size, which for
 * pointer-free types may be 1, 2, 3, 6... bytes (the stride of wide arrays
 * must be exactly that). */
static inline uint32_t cp__slot_bytes(uint32_t elem, uint32_t cls) {
  return ((elem << cls) + 3) & ~3u;
}
/* Slots per new slab of slot bytes: at least 64 KiB and about 16 slots. */
uint32_t cp__slots_per_slab(uint32_t slot);
void cp__slab_release(cp_arena_t *a, cp_slab_t *s);
void cp__block_free(cp_arena_t *a, cp_slab_t *s);
void cp__slab_rebuild_free_list(cp_slab_t *s);
void cp__slab_link(cp_type_t *t, cp_slab_t *s);
/* Finds the slab or block holding p in a, or NULL. */
static inline cp_slab_t *cp__slab_of(const cp_arena_t *a, const void *p) {
  if (!cp__arena_contains(a, p))
    return NULL;
  return a->pagemap[cp__arena_page(a, p)];
}
bool cp__slab_is_valid(const cp_slab_t *s);
/* Slow paths of the inline fast paths below. */
void cp__slab_became_full(cp_type_t *t, cp_slab_t *s);
void cp__slab_after_free(cp_arena_t *a, cp_slab_t *s);
_Noreturn void cp__bad_free(const cp_slab_t *s, const void *p);
/* Bytes from s->start to one past its last slot or element. */
static inline uint64_t cp__span_of(const cp_slab_t *s) {
  return s->kind == CP_BLOCK ? s->count * s->elem
                             : (uint64_t)s->slot * s->nslots;
}
/* Is p the start of a live slot of slab s, or the start of block s? */
static inline bool cp__is_object_start(const cp_slab_t *s, const void *p) {
  uint64_t off = (uint64_t)((const char *)p - s->start);
  if (s->kind == CP_BLOCK)
    return off == 0;
  uint64_t i = cp__slot_index(s, off);
  return i < s->bump && i * s->slot == off &&
         cp__slot_is_live(s, (uint32_t)i);
}
/* Fatal: p is not the start of a live object or array of s; `op` names
 * the call ("free", "realloc"). */
_Noreturn void cp__bad_pointer(const char *op, const cp_slab_t *s,
                               const void *p);

/* memset(p, 0, n) for a slot: n is a multiple of 4.  Small slots are
 * cleared with a few possibly overlapping stores instead of a call. */
static inline void cp__zero_slot(char *p, uint32_t n) {
  static const char z[32] = {0};
  if (n <= 8) {
    __builtin_memcpy(p, z, 4);
    __builtin_memcpy(p + n - 4, z, 4);
  } else if (n <= 16) {
    __builtin_memcpy(p, z, 8);
    __builtin_memcpy(p + n - 8, z, 8);
  } else if (n <= 32) {
    __builtin_memcpy(p, z, 16);
    __builtin_memcpy(p + n - 16, z, 16);
  } else if (n <= 64) {
    __builtin_memcpy(p, z, 32);
    __builtin_memcpy(p + n - 32, z, 32);
  } else {
    memset(p, 0, n);
  }
}

/* A zeroed slot of class cls from the type's first slab with room, or NULL
 * if it has none (then cp__alloc_in takes the slow path).  Lock held. */
static inline void *cp__slab_take(cp_type_t *t, uint32_t cls) {
  cp_slab_t *s = t->avail[cls];
  if (CP_UNLIKELY(!s))
    return NULL;
  uint32_t i = s->free_head;
  char *p;
  if (i != CP_NONE) {
    p = s->start + (size_t)i * s->slot;
    s->free_head = *(uint32_t *)p;
  } else {
    i = s->bump++;
    p = s->start + (size_t)i * s->slot;
  }
  s->live[i >> 6] |= (uint64_t)1 << (i & 63);
  if (CP_UNLIKELY(++s->used == s->nslots))
    cp__slab_became_full(t, s);
  CP_STAT_ALLOC(t, s->elems);
  cp__zero_slot(p, s->slot);
  return p;
}

/* Frees p in slab s of arena a, validating it.  Lock held. */
static inline void cp__slab_put(cp_arena_t *a, cp_slab_t *s, void *p) {
  uint64_t off = (uint64_t)((char *)p - s->start);
  uint64_t i = cp__slot_index(s, off);
  uint64_t bit = (uint64_t)1 << (i & 63);
  /* i >= bump first: an address in the slab's tail, past its last slot,
   * has no bit in the live bitmap. */
  if (CP_UNLIKELY(i >= s->bump || i * s->slot != off ||
                  !(s->live[i >> 6] & bit)))
    cp__bad_free(s, p);
  s->live[i >> 6] &= ~bit;
  *(uint32_t *)p = s->free_head;
  s->free_head = (uint32_t)i;
  CP_STAT_FREE(s->type, s->elems);
  /* The next allocation should reuse this slot while its line is hot, so
   * the slab moves to the front of its class's list. */
  if (CP_UNLIKELY(s->used-- == s->nslots || s->used == 0 ||
                  s->type->avail[s->cls] != s))
    cp__slab_after_free(a, s);
}

/* ---- process state (heap.c) --------------------------------------------- */
extern cp_arena_t cp__compact_arena;
extern cp_arena_t cp__wide_arena;
extern uint32_t cp__build;          /* CP_BUILD_* of the process */
extern bool cp__build_known;
extern uint64_t cp__pending_since;  /* cp__allocs_so_far() when it became pending */
uint64_t cp__allocs_so_far(void);   /* allocations of every type, ever */
/* Called when the compact arena's use grows: may make the switch pending. */
void cp__watch_high_water(void);
/* A try allocation failed in the compact arena: makes the switch pending. */
void cp__note_exhausted(void);
extern int cp__threads;
void cp__init(void);
/* Reserves the arena of the process's build mode; lock held. */
void cp__heap_setup(void);
/* Reserves the wide arena if it is not yet; fatal on failure. */
void cp__wide_arena_setup(void);
/* Single-threaded processes skip the lock: __libc_single_threaded only goes
 * from true to false, and only while this thread creates another, which no
 * runtime call does, so a call that skipped the lock cannot overlap one that
 * takes it, and unlock sees what lock saw.  The mutex is recursive. */
void cp__lock_slow(void);
void cp__unlock_slow(void);
extern char __libc_single_threaded;
static inline void cp__lock(void) {
  if (CP_UNLIKELY(!__libc_single_threaded))
    cp__lock_slow();
}
static inline void cp__unlock(void) {
  if (CP_UNLIKELY(!__libc_single_threaded))
    cp__unlock_slow();
}
static inline cp_arena_t *cp__current_arena(void) {
  return cp__wide ? &cp__wide_arena : &cp__compact_arena;
}
/* Where p lives: its slab/block, searching both arenas; NULL if foreign. */
cp_slab_t *cp__find_slab(const void *p);
bool cp__heap_is_valid(void);
_Noreturn void cp__exhausted(cp_arena_t *a, size_t request);

/* ---- roots (roots.c) ---------------------------------------------------- */
typedef void (*cp_root_visit_fn)(void **slot, cp_type_t *target, void *ctx);
/* Calls fn on every native slot holding a compact pointer: static root
 * tables, registered roots, root arrays and this thread's shadow stack. */
void cp__roots_each(cp_root_visit_fn fn, void *ctx);
extern uint64_t cp__root_arrays, cp__root_array_bytes;

/* ---- handles (handle.c) ------------------------------------------------- */
/* Translates a compact-mode native address (start of, or interior to, a live
 * object) to its wide address; addresses outside the arena are returned
 * unchanged.  Valid during the switch only. */
void *cp__translate(void *p);
/* The slab or block a (compact or wide) address belongs to: the page
 * map's, from its start to one past the end of its last slot or element;
 * NULL outside every slab and in the tail of a run.  (Defensive: the first
 * byte of a run that is also one past the end of a block filling the run
 * below belongs to that block unless a live object starts there; slabs and
 * blocks now always leave room after their end, so that does not arise.) */
cp_slab_t *cp__slab_owning(const cp_arena_t *a, const void *p);
/* Maps a byte offset inside a compact-layout object of t to the same place
 * in the wide layout. */
uint64_t cp__map_offset(const cp_type_t *t, uint64_t off);
/* The inverse: a wide-layout offset back to the compact layout. */
uint64_t cp__unmap_offset(const cp_type_t *t, uint64_t off);

/* ---- the switch (switch.c) ---------------------------------------------- */
void cp__switch_run(const char *why);
extern uint64_t cp__switch_count_objects, cp__switch_bytes_compact,
    cp__switch_bytes_wide, cp__switch_roots;
extern double cp__switch_seconds, cp__switch_at;
extern uint64_t cp__safepoints_deferred;
/* The compact arena's limit and peak use, kept after it is released. */
extern uint64_t cp__arena_limit_seen, cp__arena_peak_seen;
/* Seconds in: wide slabs, copy, roots and release. */
extern double cp__switch_phase[3];

/* ---- verification (verify.c) -------------------------------------------- */
typedef struct cp_digest {
  uint64_t objects, hash, roots, root_hash, type_hash;
} cp_digest_t;
/* Walks every live object and root, checks every pointer, and digests
 * contents and shape independently of the layout; fatal on a bad pointer. */
void cp__verify_heap(cp_digest_t *out, const char *when);

/* ---- statistics (stats.c) ----------------------------------------------- */
void cp__stats_at_exit(void);

#endif
