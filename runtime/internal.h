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
/* The runtime calls the real pthread_create. */
#define CP__RUNTIME_ITSELF 1
#include "compactptr.h"

#include <pthread.h>
#include <signal.h>
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
/* The low placement of the compact arena: one commit chunk above address
 * 0.  Nothing of the runtime's lies below it but the arena's guard. */
#define CP_LOW_START ((uintptr_t)1 << CP_COMMIT_SHIFT)
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
  CP_OPT_SAFEPOINT_TIMEOUT, /* ms the switch waits for a thread to stop */
  CP_OPT_SWITCH_THREADS, /* threads that copy at the switch; 0: per processor */
  CP_OPT_COUNT
} cp_option_id_t;

uint64_t cp__option(cp_option_id_t id);
void cp__options_init(void);
/* Parses "123", "64K", "16M", "2G", "1T" (binary units); -1 on error. */
int cp__parse_size(const char *s, uint64_t *out);
/* The mixed-build check's report (include/compactptr.h); never returns. */
CP_API void cp__plain_unit(const char *source);
CP_API void cp__plain_unit_elsewhere(const char *source);
/* The compact arena's bounds, for the gdb extension (debugger.c). */
extern uintptr_t cp__debug_arena_start, cp__debug_arena_end;

/* ---- os (os.c) ---------------------------------------------------------- */
_Noreturn void cp__fatal(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
/* cp__fatal for memory or address space the system refused: under an
 * address-space limit the message ends naming it and what is free. */
_Noreturn void cp__fatal_no_memory(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
/* What the program's streams hold goes out before the process stops
 * (_exit), in the order it was written: every stream with this thread the
 * only one, else stdout and stderr as their locks come free (50 ms). */
void cp__flush_streams(void);
/* process.c: stops the program if another copy of the runtime runs in
 * this process (a static runtime in the executable and in a library). */
void cp__claim_process(void);
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
bool cp__os_decommit(void *p, size_t bytes);  /* drop contents, keep access;
                                                false: kept (locked memory) */
/* Faults in a committed range for writing in one call; false if the
 * kernel cannot (then the first writes do it). */
bool cp__os_populate(void *p, size_t bytes);
/* Moves the pages of [from, from + bytes) to `to` (replacing what was
 * mapped there) without copying them, and reserves `from` again,
 * inaccessible; false if the kernel refuses (nothing moved). */
bool cp__os_move(void *from, size_t bytes, void *to);
void cp__os_release(void *p, size_t bytes);
void cp__os_guard(void *p, size_t bytes);     /* owned range -> inaccessible, memory freed */
void *cp__os_alloc_zeroed(size_t bytes);      /* metadata; NULL on failure */
void cp__os_free(void *p, size_t bytes);
double cp__now(void);                         /* seconds, CLOCK_MONOTONIC */

/* ---- arena and buddy (arena.c, buddy.c) --------------------------------- */
struct cp_slab;

/* What the buddy keeps of a page that heads a run: its order (|
 * CP_BUDDY_FREE while free) and its free list's links.  One record, not
 * three arrays: splitting a 4 GiB run down to a slab's writes the heads of
 * runs far apart, each on a page of metadata of its own, and with three
 * arrays that touched 28 pages (112 KiB of every process's memory)
 * rather than 11. */
typedef struct cp_buddy_page {
  uint32_t next, prev;
  uint8_t order;
} cp_buddy_page_t;

typedef struct cp_arena {
  char *base;              /* reserved start (page 0) */
  size_t reserved;         /* bytes reserved */
  uintptr_t start;         /* address of page first_page */
  size_t span;             /* bytes from start to page npages */
  uint32_t npages;         /* pages the buddy manages: the limit */
  uint32_t first_page;     /* pages below are never handed out */
  uint32_t max_order;
  uint32_t frontier;       /* pages from here up were never carved (buddy.c) */
  struct cp_slab **pagemap;/* per page: owning slab or block, or NULL */
  cp_buddy_page_t *runs;   /* per page: order and free-list links (heads) */
  uint32_t free_head[33];  /* per order: first free head page or CP_NONE */
  uint8_t *committed;      /* per commit chunk: CP_CHUNK_* (0: inaccessible) */
  size_t meta_bytes;       /* bytes of the metadata mapping */
  void *meta;
  uint64_t used_pages, peak_pages;
  uint64_t committed_bytes;
  uint64_t high_water_pages; /* 0: none */
  /* Chunks in free runs not yet given back (CP_CHUNK_DIRTY wholly inside
   * a free run), since when there have been any (cp__now), and no give-back
   * before purge_after (the kernel refused one: locked pages). */
  uint64_t dirty_free_chunks;
  double dirty_since, purge_after;
  bool wide;
} cp_arena_t;

#define CP_BUDDY_FREE 0x80u
/* States of a commit chunk.  ZERO: accessible and reads as zero (fresh, or
 * given back) with no run handed out in it since; DIRTY: anything else
 * that is accessible. */
enum { CP_CHUNK_NONE = 0, CP_CHUNK_DIRTY = 1, CP_CHUNK_ZERO = 2 };

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
/* The end of the compact arena, at the switch: its memory goes back to the
 * kernel but its range stays reserved and inaccessible, so a compact
 * pointer the switch could not see (kept as 'void *' in libc memory, an
 * integer, a union) faults there -- never reads memory mapped there since
 * -- and the fault is reported in one line (exit 70) instead of a bare
 * SIGSEGV.  Under an address-space limit the range is unmapped instead
 * (address space is what the limit rations). */
void cp__compact_arena_retire(cp_arena_t *a);
/* Reserves the wide arena: COMPACTPTR_WIDE_RESERVE, or less where the
 * address-space limit or the environment (valgrind) allows less, but at
 * least room for what the compact arena holds; fatal otherwise. */
void cp__wide_arena_reserve(cp_arena_t *a);
/* " (…)" naming the address-space limit that shrank arena a, or "":
 * appended to exhaustion messages. */
const char *cp__arena_limit_note(const cp_arena_t *a);
/* What would give the compact arena more room, as "raise …" advice for
 * exhaustion messages: the address-space limit or the free gap when one of
 * them shrank the arena (raising COMPACTPTR_ARENA_LIMIT would not help
 * then), COMPACTPTR_ARENA_LIMIT when it is below the reach, else NULL (the
 * arena already spans all that handles reach). */
const char *cp__compact_arena_advice(void);
/* One STATS line: where the compact arena is and why there. */
void cp__arena_describe(FILE *f);
/* Returns the first page of a free run of 2^order pages, committed, or
 * CP_NONE if none is left.  Its contents are undefined. */
uint32_t cp__buddy_alloc(cp_arena_t *a, uint32_t order);
/* The same, for a caller that will clear the run's first bytes with
 * cp__buddy_zero before anything reads them (outside the lock). */
uint32_t cp__buddy_alloc_to_zero(cp_arena_t *a, uint32_t order);
/* Clears [p, p + bytes) of a run from cp__buddy_alloc_to_zero: whole
 * chunks that read as zero already are skipped, so a large calloc costs
 * only the pages the program touches. */
void cp__buddy_zero(cp_arena_t *a, char *p, size_t bytes);
/* Moves the pages of [from, from + bytes), whole commit chunks at the
 * start of a run, to `to`, the start of another (both runs of a chunk or
 * more, their caller's own), without a copy: pages never touched stay
 * untouched.  The source chunks read as zero after it.  False where the
 * kernel refuses (the range spans mappings of different advice, locked
 * pages): nothing moved, the caller copies. */
bool cp__buddy_move(cp_arena_t *a, char *from, char *to, size_t bytes);
void cp__buddy_free(cp_arena_t *a, uint32_t page, uint32_t order);
bool cp__buddy_is_valid(const cp_arena_t *a);
uint32_t cp__order_for_bytes(size_t bytes);

/* ---- types and descriptors (descriptor.c) ------------------------------- */
typedef struct cp_copy_op {
  uint32_t kind;      /* CP_FIELD_BYTES, _HANDLE or _SLOT (flattened; an
                         _ADDRESS field is a SLOT op) */
  uint32_t from, to;  /* compact and wide byte offsets */
  uint32_t len;       /* BYTES: bytes; HANDLE: handles; SLOT: pointers */
  struct cp_type *target; /* HANDLE: pointee type, or NULL */
} cp_copy_op_t;

typedef struct cp_type {
  cp_type_desc_t *desc;      /* the first descriptor seen with this name */
  uint32_t id;               /* index in the registry */
  uint32_t compact_slot, wide_slot; /* slot sizes in bytes */
  uint32_t slot;             /* slot size of the current mode */
  /* Heap lock: */
  struct cp_slab *all;       /* every slab and block (current mode) */
  struct cp_slab *orphans[CP_NCLASSES]; /* per class: slabs of exited threads */
  /* flattened field program for the switch and verification */
  cp_copy_op_t *ops;
  uint32_t nops;
  /* A flexible array member (CP_FIELD_FLEX): its offsets in both layouts.
   * An object of such a type is an array of k objects' room (cp_flex_count)
   * whose first holds the fields and the rest only the member's elements:
   * the switch and the verifier take the room past the member's offset as
   * bytes (flex_kind CP_FIELD_BYTES, cp__flex_bytes), or as elements of
   * flex_celem bytes compact and flex_welem wide (cp__flex_elems): compact
   * pointers to translate one by one (CP_FIELD_HANDLE, `struct node
   * *forward[];`) or values of type flex_target (CP_FIELD_STRUCT, `struct
   * level { struct node *forward; unsigned long span; } level[];`). */
  bool flex;
  uint32_t flex_kind;
  uint32_t flex_compact, flex_wide;
  uint32_t flex_celem, flex_welem;
  struct cp_type *flex_target;
  /* Per field of desc: the CP_SLOT_USE_* bits of every translation unit's
   * descriptor of a CP_FIELD_SLOT field (NULL: the type has none). */
  uint8_t *slot_uses;
  /* Statistics (heap lock): allocations by heaps that are gone (the live
   * heaps count their own, cp_tbin_t), the largest live count seen when
   * it was counted (heap.c), the runs (slabs and blocks) it was counted
   * over, and runs taken from the buddy since. */
  uint64_t gone_allocs;
  int64_t peak_seen;
  uint32_t runs_counted, runs_new;
  uint64_t switch_objects;
} cp_type_t;

/* The bytes of a flexible array member that an object of k objects' room
 * holds in both layouts: what the switch copies and the verifier reads. */
static inline uint64_t cp__flex_bytes(const cp_type_t *t, uint64_t k) {
  uint64_t c = k * t->desc->compact_size - t->flex_compact,
           w = k * t->desc->wide_size - t->flex_wide;
  return c < w ? c : w;
}

/* The elements of a flexible array member of handles or values that an
 * object of k objects' room holds in both layouts.  cp_flex_count gives an
 * object room for the elements asked for in either layout, and the
 * allocation zeroes the rest: what lies past them is NULL or zero. */
static inline uint64_t cp__flex_elems(const cp_type_t *t, uint64_t k) {
  uint64_t c = (k * t->desc->compact_size - t->flex_compact) / t->flex_celem,
           w = (k * t->desc->wide_size - t->flex_wide) / t->flex_welem;
  return c < w ? c : w;
}

/* Maps a byte offset inside a compact-layout object of t to the same place
 * in the wide layout (handle.c). */
uint64_t cp__map_offset(const struct cp_type *t, uint64_t off);

/* Offset `in` from the start of an object in the compact layout lies in its
 * flexible array member: its offset in the wide object in *wide (an
 * element's address, or one past the last, keeps its index; an address
 * inside a value element, its field). */
static inline bool cp__flex_member(const cp_type_t *t, uint64_t in,
                                   uint64_t *wide) {
  if (!t->flex || in < t->flex_compact) /* the member never starts at 0 */
    return false;
  uint64_t d = in - t->flex_compact, j = d / t->flex_celem,
           r = d % t->flex_celem;
  if (t->flex_kind == CP_FIELD_STRUCT)
    r = cp__map_offset(t->flex_target, r);
  *wide = t->flex_wide + j * t->flex_welem + r;
  return true;
}

/* Type records of ids below CP_FAST_TYPES are CP_TYPE_STRIDE bytes apart
 * in one mapping, id 0 at cp__type_base (descriptor.c).
 * Mapped by cp__types_init, from cp__init: before any thread but the one
 * that loads the runtime, so the fast paths read cp__type_base plainly. */
#define CP_TYPE_STRIDE 512
#define CP_FAST_TYPES 4096
_Static_assert(sizeof(cp_type_t) <= CP_TYPE_STRIDE, "a type record fits its stride");
extern __attribute__((visibility("hidden"))) uintptr_t cp__type_base;
void cp__types_init(void);

extern cp_type_t **cp__types;
extern uint32_t cp__ntypes;
cp_type_t *cp__type_resolve(cp_type_desc_t *d);
void cp__module_register(cp_module_t *m);
/* Is p inside the loaded image of a plugin-built module (a global)?
 * Heap lock held, or the world stopped. */
bool cp__in_module_image(const void *p);
/* The images recorded so far (tests). */
size_t cp__module_images(void);
/* The address range [*lo, *hi) a loaded image's PT_LOAD segments span
 * (dl_iterate_phdr's view of it; *lo >= *hi when it has none). */
struct dl_phdr_info;
void cp__image_range(const struct dl_phdr_info *info, uintptr_t *lo,
                     uintptr_t *hi);
/* Names the integer casts of compact pointers the plugin recorded (after
 * the switch, under COMPACTPTR_STATS or COMPACTPTR_VERIFY). */
void cp__report_integer_casts(void);
extern cp_module_t *cp__modules;
/* The type of a descriptor, or NULL before its first use: d->rt is written
 * once, under the heap lock, and read by every thread's fast paths. */
static inline cp_type_t *cp__type_peek(cp_type_desc_t *d) {
  return __atomic_load_n(&d->rt, __ATOMIC_ACQUIRE);
}

/* A field only its owner thread writes, read by others (statistics, the
 * switch) without a lock: relaxed atomics, which compile to plain moves. */
#define CP_OWN_GET(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define CP_OWN_SET(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define CP_OWN_ADD(x, n) CP_OWN_SET(x, CP_OWN_GET(x) + (n))
/* CP_OWN_ADD(*p, -1) == 0, with the test on the decrement's own flags: the
 * compiler loads the field again after an atomic store (two instructions
 * more on cp_free's fast path).  One instruction, so a reader on another
 * thread sees the old value or the new one, as with the relaxed atomics. */
static inline __attribute__((always_inline)) bool cp__own_dec_is_zero(uint32_t *p) {
#if defined(__x86_64__) || defined(__i386__)
  bool zero;
  __asm__("decl %0" : "+m"(*p), "=@ccz"(zero));
  return zero;
#else
  uint32_t v = CP_OWN_GET(*p) - 1;
  CP_OWN_SET(*p, v);
  return v == 0;
#endif
}

/* ---- slabs and blocks (slab.c) ------------------------------------------ */
typedef enum { CP_SLAB = 0, CP_BLOCK = 1 } cp_slab_kind_t;

/* The owner word of a slab: the owning heap's address, or 0 for an orphan
 * (its thread exited), or'ed with flags that send the owner's own frees
 * down its slow path. */
#define CP_OWNER_FULL ((uintptr_t)1)  /* on its bin's full list */
#define CP_OWNER_DEBUG ((uintptr_t)2) /* COMPACTPTR_DEBUG: the live bitmap */
#define CP_OWNER_BLOCK ((uintptr_t)4) /* a block: no heap owns it */
#define CP_OWNER_UNMARKED ((uintptr_t)8) /* slots too small for a mark */
#define CP_OWNER_FLAGS ((uintptr_t)15)

/* The remote-free word: the head of the list of slots other threads freed
 * (a byte offset, CP_NONE when empty) in the low 32 bits, and two flags of
 * the full-slab notification (slab.c). */
#define CP_XF_HEAD ((uint64_t)UINT32_MAX)
#define CP_XF_NOTIFY ((uint64_t)1 << 32)    /* owner: tell me of a free */
#define CP_XF_NOTIFYING ((uint64_t)1 << 33) /* a freer is telling it */
/* The upper 30 bits count the slots on the list (statistics read them). */
#define CP_XF_COUNT_SHIFT 34
#define CP_XF_ONE ((uint64_t)1 << CP_XF_COUNT_SHIFT)
#define CP_XF_COUNT (~(uint64_t)0 << CP_XF_COUNT_SHIFT)

/* Where a slab is in its owner's bin (owner-only). */
enum { CP_IN_NONE, CP_IN_CUR, CP_IN_PARTIAL, CP_IN_FULL, CP_IN_ORPHANS };
/* The full-slab notification, seen from the owner (slab.c). */
enum { CP_NOTE_OFF, CP_NOTE_ARMED, CP_NOTE_PENDING };

struct cp_heap;
struct cp_tbin;

typedef struct cp_slab {
  /* First cache line: what the fast paths and address translation read. */
  char *start;
  uint64_t magic;        /* 2^64 / slot + 1: slot index without a divide */
  uintptr_t owner;       /* heap | CP_OWNER_* (atomic) */
  uint32_t slot16;       /* slot - 16, wrapping: the allocation fast path's
                            size test and the offset of its last store */
  uint32_t bump_end;     /* bump * slot: the offset past the slots ever
                            put on the free list (written with bump) */
  char *wide_start;      /* during the switch: the counterpart's start */
  uint32_t slot;         /* SLAB: bytes per slot (elems * elem); BLOCK: elem */
  uint32_t bump;         /* slots ever put on the free list (a prefix);
                            BLOCK: 1.  Written by the owner (atomic). */
  uint32_t free;         /* owner: offset of the first free slot or CP_NONE;
                            each free slot holds the next offset */
  uint32_t used;         /* owner: slots handed out, not freed back to it */
  uint32_t wide_slot;    /* during the switch: the counterpart's slot */
  uint16_t elems;        /* SLAB: elements per slot (1 or 2^cls) */
  uint8_t kind;          /* cp_slab_kind_t */
  uint8_t cls;           /* SLAB: size class */
  /* The rest. */
  uint64_t elem_magic;   /* 2^64 / elem + 1 */
  uint64_t xfree;        /* remote frees and notification (atomic) */
  cp_type_t *type;
  struct cp_tbin *bin;   /* owner: its bins of this type */
  uint64_t count;        /* BLOCK: elements; SLAB: 1 */
  uint32_t elem;         /* bytes per element, in this slab's layout */
  uint32_t nslots;       /* SLAB: capacity; BLOCK: 1 */
  uint32_t wide_elem;    /* during the switch: the counterpart's element */
  uint32_t page;         /* first page in its arena */
  uint32_t seq;          /* position in the type's list, for the verifier */
  uint8_t order;         /* buddy order of the run */
  uint8_t wide;
  uint8_t where;         /* owner: CP_IN_* */
  uint8_t note;          /* owner: CP_NOTE_* */
  struct cp_slab *next, *prev;          /* owner's bin list, or orphans */
  struct cp_slab *next_all, *prev_all;  /* the type's list (heap lock) */
  struct cp_slab *next_note;            /* owner's notification stack */
  struct cp_slab *counterpart;          /* during the switch: wide slab */
  uint64_t *live; /* SLAB: one bit per slot, or NULL before its
                     first use (cp__slab_live_bits); exact while
                     COMPACTPTR_DEBUG=1 and after cp__slab_sync */
} cp_slab_t;
_Static_assert(offsetof(cp_slab_t, elem_magic) == 64,
               "fast-path and translation fields fill one cache line");

/* The empty slab every bin starts with: no free slot, no owner. */
extern cp_slab_t cp__slab_none;

static inline uint64_t cp__slot_magic(uint32_t slot) {
  return UINT64_MAX / slot + 1;
}
/* offset / slot, exact for every offset below 2^64 / slot. */
static inline uint64_t cp__slot_index(const cp_slab_t *s, uint64_t off) {
  return (uint64_t)(((unsigned __int128)off * s->magic) >> 64);
}
/* A slab without a bitmap (none taken yet) reads as nothing live. */
static inline bool cp__slot_is_live(const cp_slab_t *s, uint32_t i) {
  return s->live &&
         (__atomic_load_n(&s->live[i >> 6], __ATOMIC_RELAXED) >> (i & 63)) & 1;
}
static inline uint64_t cp__elem_index(const cp_slab_t *s, uint64_t off) {
  return (uint64_t)(((unsigned __int128)off * s->elem_magic) >> 64);
}
static inline uintptr_t cp__owner(const cp_slab_t *s) {
  return __atomic_load_n(&s->owner, __ATOMIC_ACQUIRE);
}
/* Is off the offset of a slot of s ever put on the free list?  Below
 * bump_end, so below 2^32, where the low half of off * magic is below
 * magic exactly when the slot size divides off (Lemire, Kaser and Kurz,
 * "Faster remainder by direct computation", 2019): one multiply, of which
 * only the low half is needed, and two compares. */
static inline bool cp__slot_handed(const cp_slab_t *s, uint64_t off) {
  return off < __atomic_load_n(&s->bump_end, __ATOMIC_RELAXED) &&
         off * s->magic < s->magic;
}
static inline uint32_t cp__bump(const cp_slab_t *s) {
  return __atomic_load_n(&s->bump, __ATOMIC_RELAXED);
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

/* A slab of nslots slots of 2^cls elements of elem bytes, or a block of
 * count elements, linked on the type's list; NULL (try_only) or fatal when
 * the arena has no run left.  Heap lock held.  A block's contents are
 * undefined; with to_zero the caller clears them with cp__buddy_zero. */
cp_slab_t *cp__slab_new(cp_arena_t *a, cp_type_t *t, uint32_t cls,
                        uint32_t elem, uint32_t nslots, bool try_only);
cp_slab_t *cp__block_new(cp_arena_t *a, cp_type_t *t, uint32_t elem,
                         uint64_t count, bool to_zero, bool try_only);
/* Bytes of a slot of 2^cls elements of elem bytes: a multiple of 4, so a
 * free slot holds its free-list link and cp__zero_slot works.  An element
 * is the C size (wide) or the compact size (a multiple of the granule),
 * which for pointer-free types may be 1, 2, 3, 6... bytes (the stride of
 * arrays must be exactly that). */
static inline uint32_t cp__slot_bytes(uint32_t elem, uint32_t cls) {
  return ((elem << cls) + 3) & ~3u;
}
/* Slots per new slab of slot bytes: at least 64 KiB and about 16 slots. */
uint32_t cp__slots_per_slab(uint32_t slot);
/* Unlinks s from its type, unmaps and returns its run.  Heap lock held. */
void cp__slab_release(cp_arena_t *a, cp_slab_t *s);
/* s's live bitmap, taken (zeroed) at its first use; fatal without memory. */
uint64_t *cp__slab_live_bits(cp_slab_t *s);
/* Frees the header of a slab or block whose run is gone or given away. */
void cp__slab_header_free(cp_slab_t *s);
/* C lets a pointer to one struct name an object of another that begins
 * with it or shares its first members (handle.c). */
bool cp__may_name(const cp_type_desc_t *obj, const cp_type_t *expect);
/* A value of type expect starts at byte off of an object of type d, in the
 * wide or the compact layout: d itself, or a struct member (recursively). */
bool cp__embeds(const cp_type_desc_t *d, uint64_t off, const cp_type_t *expect,
                bool wide);
/* cp__embeds at place pl of slab s, also inside a flexible array member of
 * compact values (an element, or a struct member of one). */
bool cp__embeds_place(const cp_slab_t *s, cp_place_t pl,
                      const cp_type_t *expect, bool wide);
/* A pointer p to a t that names no t but one of t's struct members would
 * (p plus its offset names a live object of the member's type, or one
 * embedded): what container_of makes of a list head that is no element,
 * `container_of(&head, struct item, link)` at the end of the kernel's
 * list_for_each_entry_safe.  That member, or NULL.  World stopped; slabs
 * synced. */
const cp_field_desc_t *cp__container_member(const cp_arena_t *a, const void *p,
                                            const cp_type_t *t, bool wide);
/* Finds the slab or block holding p in a, or NULL. */
static inline cp_slab_t *cp__slab_of(const cp_arena_t *a, const void *p) {
  if (!cp__arena_contains(a, p))
    return NULL;
  return a->pagemap[cp__arena_page(a, p)];
}
bool cp__slab_is_valid(const cp_slab_t *s);
/* Live elements of slab or block s: slots handed out less the remote frees
 * waiting on its list, times the elements per slot.  Any thread (a
 * snapshot while the owner runs). */
static inline uint64_t cp__slab_live(const cp_slab_t *s) {
  if (s->kind == CP_BLOCK)
    return s->count;
  uint64_t waiting =
      __atomic_load_n(&s->xfree, __ATOMIC_RELAXED) >> CP_XF_COUNT_SHIFT;
  return (CP_OWN_GET(s->used) - waiting) * s->elems;
}
/* Bytes from s->start to one past its last slot or element. */
static inline uint64_t cp__span_of(const cp_slab_t *s) {
  return s->kind == CP_BLOCK ? s->count * s->elem
                             : (uint64_t)s->slot * s->nslots;
}

/* Owner side of a slab (slab.c). */
/* Links never-used slots onto the free list, up to the end of the page
 * that holds the next one; false when the slab has none left. */
bool cp__slab_extend(cp_slab_t *s);
/* Moves the slots other threads freed onto the free list; returns how
 * many.  Owner (or heap lock for orphans). */
uint32_t cp__slab_collect(cp_slab_t *s);
/* Asks freers to push s on its owner's notification stack; false (and
 * nothing armed) when remote frees are already waiting.  Owner. */
bool cp__slab_arm(cp_slab_t *s);
/* Withdraws the request; a freer that took it already leaves the slab
 * pending on the stack.  Owner. */
void cp__slab_disarm(cp_slab_t *s);
/* Fatal unless the free list holds exactly the slots below bump, each once
 * (used == 0 is about to give the run back).  Owner. */
void cp__slab_check_empty(const cp_slab_t *s);
/* True when no freer is between taking the notification and finishing
 * the push. */
bool cp__slab_quiet(const cp_slab_t *s);
/* Spins until cp__slab_quiet (a freer in that window never waits). */
void cp__slab_wait_quiet(const cp_slab_t *s);
/* Pushes slot p (already marked free) on the remote list; tells the owner
 * when it asked to be told.  Any thread. */
void cp__slab_push_remote(cp_slab_t *s, void *p);
/* Recomputes the live bitmap and `used` from bump and every free list, and
 * empties the remote list into the free list.  World stopped. */
void cp__slab_sync(cp_slab_t *s);
/* Rebuilds the free list (and marks) from the live bitmap.  World stopped. */
void cp__slab_rebuild_free_list(cp_slab_t *s);

/* Marks written into free slots of 8 bytes or more: bytes 4..7 of a free
 * slot hold cp__mark_free, and bytes 8..11 of one never handed out (slots
 * of 12 bytes or more) cp__mark_fresh too.  Random per process, neither
 * zero.  One 4-byte store per free, one 4-byte compare per allocation
 * (slab.c). */
extern __attribute__((visibility("hidden"))) uint32_t cp__mark_free,
    cp__mark_fresh;
static inline bool cp__slot_marked(uint32_t slot) { return slot >= 8; }
static inline uint32_t cp__mark_of(const void *p) {
  uint32_t m;
  __builtin_memcpy(&m, (const char *)p + 4, 4);
  return m;
}
static inline bool cp__is_free_mark(uint32_t m) { return m == cp__mark_free; }
static inline void cp__mark_set(void *p) {
  __builtin_memcpy((char *)p + 4, &cp__mark_free, 4);
}
/* Was free slot p (of slot bytes) never handed out?  Slots under 12 bytes
 * do not say. */
static inline bool cp__mark_is_fresh(const void *p, uint32_t slot) {
  uint32_t m;
  __builtin_memcpy(&m, (const char *)p + 8, 4);
  return slot >= 12 && m == cp__mark_fresh;
}

/* Is slot i of s live?  The live bitmap under COMPACTPTR_DEBUG=1; otherwise
 * the marks for slots of 8 bytes or more, and "yes" for smaller ones.  (The
 * switch and the verifier read the bitmap after cp__slab_sync.) */
static inline bool cp__slot_live_now(const cp_slab_t *s, uint32_t i) {
  if (i >= cp__bump(s))
    return false;
  if (cp__debug || !cp__slot_marked(s->slot))
    return !cp__debug || cp__slot_is_live(s, i);
  return !cp__is_free_mark(cp__mark_of(s->start + (size_t)i * s->slot));
}

/* Fatal: p is not the start of a live object or array of s; `op` names
 * the call ("free", "realloc"); `why` is what the check found. */
_Noreturn void cp__bad_pointer(const char *op, const cp_slab_t *s,
                               const void *p);
/* Is p the start of a live slot of slab s (or the start of block s)?  Exact
 * under COMPACTPTR_DEBUG=1 and with the world stopped; otherwise the marks
 * decide for slots of 8 bytes or more. */
bool cp__is_object_start(const cp_slab_t *s, const void *p);

/* memset(p, 0, n) for a slot: n is a multiple of 4.  Small slots are
 * cleared with two possibly overlapping stores instead of a call; 16 to 32
 * bytes (the usual node) is tested first, with one compare. */
static inline __attribute__((always_inline)) void cp__zero_slot(char *p,
                                                              uint32_t n) {
  static const char z[32] = {0};
  if (CP_LIKELY(n - 16 <= 16)) {
    __builtin_memcpy(p, z, 16);
    __builtin_memcpy(p + n - 16, z, 16);
  } else if (n < 16) {
    if (n >= 8) {
      __builtin_memcpy(p, z, 8);
      __builtin_memcpy(p + n - 8, z, 8);
    } else {
      __builtin_memcpy(p, z, 4);
      __builtin_memcpy(p + n - 4, z, 4);
    }
  } else if (n <= 64) {
    __builtin_memcpy(p, z, 32);
    __builtin_memcpy(p + n - 32, z, 32);
  } else {
    memset(p, 0, n);
  }
}

/* ---- per-thread heaps (heap.c) ------------------------------------------ */
/* The slabs of one size class of one type that one heap owns: the slab
 * allocations come from, slabs with free slots, and full slabs. */
typedef struct cp_bin {
  cp_slab_t *cur;        /* never NULL: &cp__slab_none when it has none */
  cp_slab_t *partial, *partial_tail; /* first in, first out: a slab that
                            just got a slot back waits while the others
                            gather more */
  cp_slab_t *full;
} cp_bin_t;

/* Per heap and type: the class-0 bin and the counters (elements) share
 * the first cache line, which the fast paths touch; 512 bytes, so an index
 * is a shift. */
typedef struct cp_tbin {
  /* Allocations (elements) by this heap's thread, owner-written
   * (CP_OWN_*), read by statistics.  Frees are not counted: the live
   * count comes from the slabs (heap.c). */
  uint64_t allocs;
  cp_bin_t bins[CP_NCLASSES];
  char pad[512 - CP_NCLASSES * sizeof(cp_bin_t) - 8];
} cp_tbin_t;
_Static_assert(sizeof(cp_tbin_t) == 512, "a tbin is 512 bytes");
/* Where the tbin of the type a descriptor resolved to is in a heap, in
 * bytes from its tb: id * CP_TYPE_STRIDE for a type record in the mapping,
 * and an offset at or above every heap's nfast otherwise (NULL, a record
 * past the mapping: below cp__type_base or above its end). */
_Static_assert(sizeof(cp_tbin_t) == CP_TYPE_STRIDE,
               "type records and tbins have one stride");
static inline uint64_t cp__rt_bin(const cp_type_t *t) {
  return (uint64_t)((uintptr_t)t - cp__type_base);
}

typedef struct cp_heap {
  cp_tbin_t *more;       /* per type id from CP_FAST_TYPES up (tb holds the
                            ones below); grown by the owner under the heap
                            lock, read by statistics under it */
  uint32_t ntb;          /* type ids with a tbin (cp__tbin_at) */
  uint64_t nfast;        /* the allocation fast path takes types whose
                            cp__rt_bin is below: tb's entries (up to
                            CP_FAST_TYPES), or none under COMPACTPTR_DEBUG=1
                            or while a switch is pending (written under the
                            heap lock, by any thread; read by the owner) */
  cp_slab_t *notes;      /* notification stack: full slabs that got remote
                            frees (atomic; pushed by freers, emptied by the
                            owner) */
  struct cp_thread *thread;
  struct cp_heap *next, *prev; /* every heap (heap lock) */
  bool unarmed;          /* full slabs went unarmed while the process had
                            one thread; armed once it has more */
  /* The tbins of type ids below CP_FAST_TYPES, in the heap's own mapping
   * (cp__heap_new: 2 MiB of address space, a page of memory per 8 types
   * used), so the allocation fast path finds a type's bins at a fixed
   * offset from the heap, without loading a pointer to them; entries
   * from ntb up are not initialised. */
  _Alignas(64) cp_tbin_t tb[];
} cp_heap_t;
static inline cp_tbin_t *cp__tbin_at(cp_heap_t *h, uint32_t id) {
  return CP_LIKELY(id < CP_FAST_TYPES) ? &h->tb[id]
                                       : &h->more[id - CP_FAST_TYPES];
}

/* The calling thread's heap; &cp__heap_empty (no types, no slabs) until the
 * thread first allocates or frees, and again after its exit hook ran. */
extern _Thread_local cp_heap_t *cp__heap CP__TLS;
extern cp_heap_t cp__heap_empty;
extern cp_heap_t *cp__heaps; /* every live heap (heap lock) */

/* Allocation and free slow paths, with statistics. */
void *cp__heap_alloc_slow(cp_type_desc_t *d, uint32_t cls, bool try_only);
void cp__free_slow(cp_slab_t *s, void *p);
/* A new heap for the calling thread, and its end: slabs with live objects
 * become orphans, empty ones go back to the buddy, counters go to the
 * types.  Heap lock taken inside. */
cp_heap_t *cp__heap_new(void);
/* The same, or NULL where its address space cannot be mapped (thread
 * creation then fails as pthread_create does, with EAGAIN). */
cp_heap_t *cp__heap_try_new(void);
void cp__heap_abandon(cp_heap_t *h);
/* After fork, in the child: the heaps of threads that do not exist there
 * are abandoned, and the caller's own heap is resynchronised (freers that
 * were between steps in the parent left flags behind).  Locks held. */
void cp__heap_after_fork(cp_heap_t *self);
/* The switch: every heap's bins are emptied before the copy and refilled
 * with the wide counterparts after it.  World stopped, heap lock held. */
void cp__heaps_forget_slabs(void);
void cp__heap_place(cp_heap_t *h, cp_slab_t *w, uint8_t where);
/* Allocations of t ever, its live count now, and its peak: the largest
 * live count seen when it was counted (now, at the switch, and as its
 * slabs grew: heap.c's counters).  Heap lock held. */
void cp__type_counts(cp_type_t *t, uint64_t *allocs, int64_t *live,
                     int64_t *peak);

/* ---- process state (heap.c) --------------------------------------------- */
extern cp_arena_t cp__compact_arena;
extern cp_arena_t cp__wide_arena;
extern uint32_t cp__build;          /* CP_BUILD_* of the process */
extern bool cp__build_known;
extern uint64_t cp__pending_since;  /* cp__allocs_so_far() when it became pending */
uint64_t cp__allocs_so_far(void);   /* allocations of every type, ever; heap lock */
/* Called when the compact arena's use grows: may make the switch pending.
 * Heap lock held. */
void cp__watch_high_water(void);
/* A try allocation failed in the compact arena: makes the switch pending.
 * Heap lock held. */
void cp__note_exhausted(void);
void cp__init(void);
/* Reserves the arena of the process's build mode; heap lock held. */
void cp__heap_setup(void);
/* Reserves the wide arena if it is not yet; fatal on failure. */
void cp__wide_arena_setup(void);
/* The heap lock: buddy, arenas, page maps, the type registry, slab lists
 * of types, orphans, the list of heaps, blocks and roots. */
void cp__lock(void);
void cp__unlock(void);
static inline cp_arena_t *cp__current_arena(void) {
  return cp__wide ? &cp__wide_arena : &cp__compact_arena;
}
/* What cp_free reads of the current arena, in one line: set up with the
 * arena and at the switch (the world stopped), read without a lock. */
typedef struct cp_fast {
  char *base;
  uint64_t span;          /* bytes the page map covers */
  cp_slab_t **pagemap;
  cp_slab_t **slabmap;    /* per 64 KiB region: its slab (slab.c) */
  uint64_t slabmask;      /* the slab map's entries - 1 */
} cp_fast_t;
/* The slab map of arena a (made on first use), with its mask, and its
 * end.  Entry (address >> 16) & mask. */
cp_slab_t **cp__slabmap(const cp_arena_t *a, uint64_t *mask);
void cp__slabmap_drop(const cp_arena_t *a);
extern cp_fast_t cp__fast;
void cp__fast_update(void); /* from cp__current_arena(); heap lock held */
/* Where p lives: its slab/block, searching both arenas; NULL if foreign. */
cp_slab_t *cp__find_slab(const void *p);
_Noreturn void cp__exhausted(cp_arena_t *a, size_t request);
/* Marks the switch pending (1) or done (0) and turns every heap's
 * allocation fast path off while it is pending (heap.c).  Heap lock held. */
void cp__set_pending(int v);
static inline int cp__pending(void) {
  return __atomic_load_n(&cp__switch_pending, __ATOMIC_SEQ_CST);
}

/* ---- threads (thread.c) -------------------------------------------------- */
/* A thread's state, as the stop-the-world switch sees it (safepoint.c). */
enum {
  CP_TS_STARTING,  /* created by cp_thread_create, not yet running: safe */
  CP_TS_RUNNING,   /* anywhere but the places below: not safe */
  CP_TS_PARKED,    /* waiting at a safepoint: safe */
  CP_TS_NATIVE,    /* in a native region entered outside compact bodies */
  CP_TS_HELD,      /* NATIVE, and the switch holds it there: safe */
  CP_TS_NATIVE_UNSAFE /* in a native region entered under a compact body */
};

typedef struct cp_thread {
  struct cp_thread *next, *prev; /* the registry (registry lock) */
  int state;                     /* CP_TS_* (atomic) */
  int tid;                       /* kernel thread id */
  uint32_t seq;          /* 1 for the first thread, then in attach order */
  unsigned native_depth; /* cp__compact_depth when it entered native */
  unsigned deferred_depth; /* at its last safepoint deferred under a compact
                              body (atomic), 0 if none */
  unsigned exit_rounds;  /* the exit hook's calls so far (thread.c) */
  cp_frame_t **frames;   /* the thread's cp__frame_top */
  int *inside;           /* the thread's cp__inside */
  cp_heap_t *heap;
  char *stack_lo, *stack_hi; /* its stack block (thread-local storage too) */
  /* cp_thread_create: start routine and argument (a root until it runs). */
  void *(*start_fn)(void *);
  /* A C11 thread's (cp_thrd_create): start_fn is NULL then.  Either one
   * names the thread's start routine in a refusal. */
  int (*start_c11)(void *);
  void *start_arg;
  /* Created by a thread outside rewritten code (cp__inside 0): a pool's
   * own file, or rewritten code calling pthread_create out of itself.  The
   * thread starts outside too, so a start routine of a file without
   * compact types (the pool's worker) never holds the switch up; one of a
   * rewritten file comes inside at its entry. */
  bool start_outside;
  /* The creator's signal mask: the thread starts with every signal
   * blocked and takes this one once it is bound to its record.  A handler
   * that ran before (SIGALRM is any thread's) found the thread unknown,
   * attached it a second time, and the switch waited on that record for
   * ever. */
  sigset_t start_mask;
  /* Values of pthread keys the plugin saw set to compact pointers
   * (cp_thread_specific; thread.c): roots while the thread lives. */
  struct cp_specific *specifics;
} cp_thread_t;

/* Outside rewritten code -> inside (cp__inside 0 -> 1), once a switch
 * that holds the thread there is over; 0 if it was inside already.  No
 * lock, no allocation (safepoint.c). */
int cp__come_inside(void);
/* Threads the runtime has never met (stranger.c).  cp__stranger_come: the
 * calling thread, entering rewritten code, takes a slot that shows the
 * switch its cp__inside (lock-free, async-signal-safe; waits while a
 * switch runs).  cp__stranger_gone: it gives the slot back (registry lock
 * held: it has become known, or it exits).  cp__strangers_hold: the
 * leader holds every one outside (0 -> 2) and returns how many are
 * inside (*tid: the kernel id of the first); cp__strangers_let_go: 2 -> 0 for
 * all, when the switch is over (both with the registry lock held). */
void cp__stranger_come(void);
void cp__stranger_gone(void);
int cp__strangers_hold(int *tid);
void cp__strangers_let_go(void);
void cp__strangers_after_fork(void);
/* Makes the exit hook run for a thread the runtime has never met that came
 * inside rewritten code, so that one exiting there stops counting.
 * Async-signal-safe (thread.c). */
void cp__stranger_hook(void);
/* Runs a thread's start routine, so that a cancellation or pthread_exit
 * that unwinds out of it settles as one through cp__outside_run does
 * (safepoint.c); `outside`: the thread started outside. */
void cp__start_run(void *(*fn)(void *), void *arg, bool outside, void **ret);

/* The calling thread's record, NULL until it is known. */
extern _Thread_local cp_thread_t *cp__self CP__TLS;
/* Known threads (registry lock). */
extern cp_thread_t *cp__threads_list;
extern uint32_t cp__nthreads;
/* The registry lock: the list of threads, their states and the
 * handshake.  Taken before the heap lock, never after it. */
void cp__reg_lock(void);
void cp__reg_unlock(void);
extern pthread_mutex_t cp__reg_mutex;
/* The calling thread's record, made (and its heap) on first use. */
cp_thread_t *cp__thread_attach(void);
static inline cp_thread_t *cp__thread(void) {
  cp_thread_t *t = cp__self;
  return CP_LIKELY(t != NULL) ? t : cp__thread_attach();
}
/* The thread's heap, made on first use.  Inside a native region cp__heap
 * is the empty heap too, so allocation and free reach this and stop the
 * program (the switch may be moving the heap meanwhile). */
cp_heap_t *cp__heap_slow(void);
/** Ends the calling thread's native region, however deep: its heap back,
 *  running once a switch that holds it is over (safepoint.c). */
void cp__native_end(cp_thread_t *t);
static inline cp_heap_t *cp__my_heap(void) {
  cp_heap_t *h = cp__heap;
  return CP_LIKELY(h != &cp__heap_empty) ? h : cp__heap_slow();
}
/* Is the kernel thread still there?  (A thread whose exit hook could not
 * run, because a destructor that allocated outlived the rounds glibc
 * allows, stays registered.) */
bool cp__thread_alive(const cp_thread_t *t);
/* Forgets a thread that is gone without its exit hook: abandons its heap.
 * Registry lock held. */
void cp__thread_reap(cp_thread_t *t);

/* ---- safepoints and the handshake (safepoint.c) ------------------------- */
/* The calling thread is at a safepoint (no compact body active, every
 * compact pointer it holds is in a root): it runs the pending switch, or
 * waits while another thread runs it.  `why` names the trigger. */
void cp__safepoint(const char *why);
/* The registry lock is held and a stop is in progress: the calling thread
 * (not the leader) waits in state PARKED until the switch is over. */
void cp__park(cp_thread_t *self);
extern int cp__stopping; /* a leader is stopping the world (atomic) */
extern uint64_t cp__safepoint_timeout_ms;
/* After fork, in the child: no leader, no waiter; locks held. */
void cp__safepoint_after_fork(void);

/* ---- roots (roots.c) ---------------------------------------------------- */
/* target: the slot's compact type, NULL where the slot may hold any
 * pointer (a root array's or a thread argument's); name: the variable's
 * name as the plugin gave it, or NULL. */
typedef void (*cp_root_visit_fn)(void **slot, cp_type_t *target,
                                 const char *name, void *ctx);
/* Calls fn on every native slot holding a compact pointer: static root
 * tables, registered roots, root arrays, every known thread's shadow stack
 * and the arguments of threads not yet started.  World stopped, or a single
 * thread. */
void cp__roots_each(cp_root_visit_fn fn, void *ctx);
/* Calls fn on every compact pointer of the wide-layout value of t at v. */
void cp__root_visit_value(char *v, cp_type_t *t, const char *name,
                          cp_root_visit_fn fn, void *ctx);
/* Drops registered roots inside [lo, hi) (an exiting thread's stack and
 * thread-local storage).  Heap lock held. */
void cp__roots_forget_range(const char *lo, const char *hi);
/* Registers the calling thread's copies of every thread-local root
 * (cp_tls_roots_register), when it becomes known.  Takes the heap lock. */
void cp__tls_roots_attach(void);
extern uint64_t cp__root_arrays, cp__root_array_bytes;
extern uint64_t cp__pinned_blocks, cp__pinned_bytes;
/* rootarray.c: every slot of every live root array and every compact
 * pointer of every pinned object; is p in the region both are carved from
 * (one range compare, no lock)? */
void cp__root_arrays_each(cp_root_visit_fn fn, void *ctx);
/* Visits the threads' results kept until their join (thread.c; registry
 * lock held). */
void cp__thread_results_each(cp_root_visit_fn fn, void *ctx);
/* Visits thread t's key values kept by cp_thread_specific (registry lock
 * held, t stopped). */
void cp__thread_specifics_each(cp_thread_t *t, cp_root_visit_fn fn, void *ctx);
bool cp__is_root_array_memory(const void *p);

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
/* cp__map_offset (above, for cp__flex_member) maps a byte offset inside a
 * compact-layout object of t to the same place in the wide layout; the
 * inverse, a wide-layout offset back to the compact layout: */
uint64_t cp__unmap_offset(const cp_type_t *t, uint64_t off);

/* ---- the switch (switch.c) ---------------------------------------------- */
/* Relocates the heap.  World stopped (every other thread parked, held in
 * native or not started), registry lock held; takes the heap lock. */
void cp__switch_run(const char *why);
extern uint64_t cp__switch_count_objects, cp__switch_bytes_compact,
    cp__switch_bytes_wide, cp__switch_roots;
extern double cp__switch_seconds, cp__switch_at;
extern uint64_t cp__safepoints_deferred;
extern uint32_t cp__switch_threads; /* threads stopped for the switch */
extern uint32_t cp__switch_helpers; /* threads that helped copy */
/* Compact heaps larger than this are copied by helper threads too (a test
 * sets it to 0). */
extern uint64_t cp__switch_parallel_bytes;
/* The compact arena's limit and peak use, kept after it is released. */
extern uint64_t cp__arena_limit_seen, cp__arena_peak_seen;
/* Seconds in: wide slabs (counterparts and the translation table), copy,
 * roots, and release (free lists, heaps, the compact arena). */
#define CP_SWITCH_PHASES 4
extern double cp__switch_phase[CP_SWITCH_PHASES];
/* Seconds of the copy, summed over its threads: backing wide pages,
 * copying objects, giving compact chunks back. */
#define CP_COPY_PARTS 3
extern double cp__switch_copy_time[CP_COPY_PARTS];
/* 2 MiB compact chunks moved into the wide heap, and returned to the
 * kernel, during the last switch; wide chunks backed with fresh pages, and
 * how many of those with 4 KiB pages. */
extern uint64_t cp__switch_chunks_moved, cp__switch_chunks_returned;
extern uint64_t cp__switch_chunks_fresh, cp__switch_chunks_small;
/* Fresh huge pages that come at fewer bytes per second than this are
 * weighed against 4 KiB pages (switch.c; tests raise it to make the copy
 * use both kinds). */
extern uint64_t cp__switch_fresh_huge_min;

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
