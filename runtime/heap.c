/*
 * heap.c - per-thread heaps, the public allocation entry points, and the
 * process state around them.
 *
 * A heap belongs to one thread.  Per type it has a tbin: counters and one
 * bin per size class; a bin is the slab allocations come from (`cur`), the
 * other slabs with free slots and the full ones (slab.c describes their
 * states and the protocol with other threads' frees).  cp_alloc and cp_free
 * are written out here so their common case is a handful of loads and
 * stores on the thread's own slab: no lock, no atomic read-modify-write.
 *
 * Which arena serves a call: the compact arena until the switch, the wide
 * arena after it (or from the start in a `wide` build).  This file also
 * watches the high-water mark that makes the switch pending, and reports
 * exhaustion.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

int cp__wide;
int cp__debug;
int cp__switch_pending;
_Thread_local cp_frame_t *cp__frame_top CP__TLS;
cp_frame_t cp__frame_bottom;
_Thread_local unsigned cp__compact_depth CP__TLS;
_Thread_local unsigned cp__native_nest CP__TLS;
_Thread_local int cp__inside CP__TLS; /* 0: every thread starts outside */
_Thread_local cp_heap_t *cp__heap CP__TLS = &cp__heap_empty;

cp_arena_t cp__compact_arena;
cp_arena_t cp__wide_arena;
uint32_t cp__build;
bool cp__build_known;
uint64_t cp__pending_since;

cp_heap_t cp__heap_empty;
/* A slab map of one empty entry, until an arena has one: cp_free looks
 * every address up in it. */
static cp_slab_t *no_slabs[1];
cp_fast_t cp__fast = {.slabmap = no_slabs};

void cp__fast_update(void) {
  const cp_arena_t *a = cp__current_arena();
  __atomic_store_n(&cp__fast.base, a->base, __ATOMIC_RELAXED);
  __atomic_store_n(&cp__fast.pagemap, a->pagemap, __ATOMIC_RELAXED);
  uint64_t mask;
  cp_slab_t **map = cp__slabmap(a, &mask);
  __atomic_store_n(&cp__fast.slabmap, map ? map : no_slabs, __ATOMIC_RELAXED);
  __atomic_store_n(&cp__fast.slabmask, mask, __ATOMIC_RELAXED);
  __atomic_store_n(&cp__fast.span, (uint64_t)a->npages << CP_PAGE_SHIFT,
                   __ATOMIC_RELAXED);
}
cp_heap_t *cp__heaps;
/* Remote frees into orphans since start; the sweep compares. */
static uint64_t orphan_frees, orphan_frees_swept;

static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static bool heap_ready;

void cp__lock(void) { pthread_mutex_lock(&heap_lock); }
void cp__unlock(void) { pthread_mutex_unlock(&heap_lock); }

static void init_once_fn(void) {
  cp__claim_process(); /* before anything of a second copy takes effect */
  cp__options_init();
  cp__compact_reserve(); /* at load time, before any code asks the mode */
  cp__types_init();
  cp__debug = cp__option(CP_OPT_DEBUG) != 0;
  cp__safepoint_timeout_ms = cp__option(CP_OPT_SAFEPOINT_TIMEOUT);
  /* Marks of free slots: random, so no program's data matches them by
   * design; never zero (what a cleared object holds). */
  uint64_t r = 0;
  if (getrandom(&r, sizeof r, GRND_NONBLOCK) != sizeof r)
    r = ((uint64_t)(uintptr_t)&r ^ (uint64_t)(cp__now() * 1e9)) *
        0x9e3779b97f4a7c15ull;
  cp__mark_free = (uint32_t)r | 1;
  cp__mark_fresh = (uint32_t)(r >> 32) | 1;
  if (cp__option(CP_OPT_STATS))
    atexit(cp__stats_at_exit);
  void cp__threads_init(void);
  cp__threads_init();
}

void cp__init(void) { pthread_once(&init_once, init_once_fn); }

/* Defined by rewritten switchable code (CP_DEFINE_SWITCHABLE_CODE). */
extern const char cp__switchable_code __attribute__((weak));

/* Malformed options stop the program at start-up, not at first use; the
 * compact arena is placed before any constructor of the program runs, and
 * the thread that loads the runtime (the main thread) is known from here.
 * Attached, it runs inside; in a process with rewritten switchable code it
 * starts outside instead, as threads from libc's pthread_create do: that
 * code's entries (main, constructors that touch compact objects) bring it
 * inside, and a main the plugin left as it is (its file has no compact
 * type) counts as stopped while it waits for a pool whose worker
 * switches.  Attached inside, such a main held that switch up until the
 * timeout.  No other thread runs yet. */
__attribute__((constructor(101))) static void cp__init_at_load(void) {
  cp__init();
  cp__thread_attach();
  if (&cp__switchable_code)
    __atomic_store_n(&cp__inside, 0, __ATOMIC_RELEASE);
}

void cp__wide_arena_setup(void) {
  if (!cp__arena_is_reserved(&cp__wide_arena))
    cp__wide_arena_reserve(&cp__wide_arena);
}

void cp__heap_setup(void) {
  if (heap_ready)
    return;
  if (cp__build_known && cp__build == CP_BUILD_WIDE) {
    cp__compact_reserve_release();
    cp__wide_arena_setup();
    cp__wide = 1;
  } else if (!cp__reservation.ok && !cp__compact_arena.npages) {
    /* No room below the reach of handles (the process is in wide mode
     * since load time): compression is off, the program is not. */
    if (cp__build != CP_BUILD_SWITCHABLE)
      cp__compact_arena_missing();
    cp__wide_arena_setup();
    cp__wide = 1;
  } else if (!cp__wide && cp__compact_arena_adopt(&cp__compact_arena)) {
    /* The mark counts the pages the buddy can hand out, and
     * stays a slab run below their total: the arena is carved into aligned
     * runs, so with 64 KiB slabs the last pages below a higher mark are
     * never used, the mark is never crossed, and the program would exhaust
     * the arena without the switch ever becoming pending. */
    cp_arena_t *a = &cp__compact_arena;
    uint64_t usable = a->npages - a->first_page;
    uint64_t slab = ((uint64_t)1 << CP_SLAB_MIN_SHIFT) >> CP_PAGE_SHIFT;
    uint64_t mark = (usable * cp__option(CP_OPT_HIGH_WATER) + 99) / 100;
    if (mark + slab > usable)
      mark = usable > slab ? usable - slab : 1;
    a->high_water_pages = mark;
    cp__debug_arena_start = a->start;
    cp__debug_arena_end = a->start + a->span;
  }
  cp__fast_update();
  heap_ready = true;
}

static inline cp_type_t *type_of(cp_type_desc_t *d) {
  cp_type_t *t = cp__type_peek(d);
  return CP_LIKELY(t != NULL) ? t : cp__type_resolve(d);
}

/* ---- counters ------------------------------------------------------------ */

/* A heap counts its allocations (elements) per type, one add on the fast
 * path; nothing counts frees.  The live count is read off the slabs when
 * it is asked for: what each slab's `used` says, less the remote frees
 * waiting on it (cp__slab_live). */
static inline void count_alloc(cp_tbin_t *tb, uint64_t n) {
  CP_OWN_ADD(tb->allocs, n);
}

/* Allocations of t ever, by every heap, gone ones too.  Heap lock held. */
static uint64_t type_allocs(const cp_type_t *t) {
  uint64_t a = t->gone_allocs;
  for (cp_heap_t *h = cp__heaps; h; h = h->next)
    if (t->id < CP_OWN_GET(h->ntb))
      a += CP_OWN_GET(cp__tbin_at(h, t->id)->allocs);
  return a;
}

/* The live count of t, from its slabs and blocks; raises the peak seen.
 * Heap lock held (no slab comes or goes). */
static int64_t type_live(cp_type_t *t) {
  int64_t live = 0;
  uint32_t runs = 0;
  for (const cp_slab_t *s = t->all; s; s = s->next_all, runs++)
    live += (int64_t)cp__slab_live(s);
  if (live > t->peak_seen)
    t->peak_seen = live;
  t->runs_counted = runs;
  t->runs_new = 0;
  return live;
}

void cp__type_counts(cp_type_t *t, uint64_t *allocs, int64_t *live,
                     int64_t *peak) {
  *allocs = type_allocs(t);
  *live = type_live(t);
  *peak = t->peak_seen;
}

/* A slab or block of t was taken from the buddy: once t has taken an
 * eighth as many as it had at the last count, count again (so counting
 * costs each new run a constant amortized, and the peak seen follows the
 * heap as it grows).  Heap lock held. */
static void note_peak(cp_type_t *t) {
  if (++t->runs_new > t->runs_counted / 8)
    type_live(t);
}

uint64_t cp__allocs_so_far(void) {
  uint64_t n = 0;
  for (uint32_t k = 0; k < cp__ntypes; k++)
    n += type_allocs(cp__types[k]);
  return n;
}

/* ---- heaps --------------------------------------------------------------- */

static void tbin_init(cp_tbin_t *tb) {
  memset(tb, 0, sizeof *tb);
  for (uint32_t c = 0; c < CP_NCLASSES; c++)
    tb->bins[c].cur = &cp__slab_none;
}

/* The fast path's bound for h (nfast).  Zero while a switch is pending:
 * every allocation then takes the slow path, where the allocation at a
 * safepoint looks at the flag, so its fast path needs no test of its own
 * (as a JVM ends every thread's TLAB to bring allocating threads to a
 * safepoint).  The pending flag changes under the heap lock, and so does
 * nfast; the owner reads it without the lock and sees the change at its
 * next allocation.  Heap lock held. */
static void set_fast(cp_heap_t *h) {
  uint32_t n = h->ntb < CP_FAST_TYPES ? h->ntb : CP_FAST_TYPES;
  uint64_t bound = cp__debug || cp__pending() ? 0 : (uint64_t)n * CP_TYPE_STRIDE;
  __atomic_store_n(&h->nfast, bound, __ATOMIC_RELAXED);
}

void cp__set_pending(int v) {
  __atomic_store_n(&cp__switch_pending, v, __ATOMIC_SEQ_CST);
  for (cp_heap_t *h = cp__heaps; h; h = h->next)
    set_fast(h);
}

/* A heap and the tbins of the first CP_FAST_TYPES type ids: address space
 * only, until types come (on 4 KiB pages, not a huge page per thread). */
static const size_t heap_bytes =
    sizeof(cp_heap_t) + (size_t)CP_FAST_TYPES * sizeof(cp_tbin_t);

cp_heap_t *cp__heap_new(void) {
  cp_heap_t *h = cp__heap_try_new();
  if (!h)
    cp__fatal_no_memory(
        "cannot map a thread's heap (%zu bytes of address space)", heap_bytes);
  return h;
}

cp_heap_t *cp__heap_try_new(void) {
  cp_heap_t *h = cp__os_alloc_zeroed(heap_bytes);
  if (!h)
    return NULL;
  cp__os_advise_pages(h, heap_bytes, false);
  cp__lock();
  h->next = cp__heaps;
  if (cp__heaps)
    cp__heaps->prev = h;
  cp__heaps = h;
  cp__unlock();
  return h;
}

/* Makes room in h for every registered type (the owner, at the first use
 * of a type).  Ids below CP_FAST_TYPES have their place in the heap; the
 * others are in `more`, which moves as it grows: statistics read it under
 * the heap lock, so it moves under it. */
static void heap_grow(cp_heap_t *h) {
  cp__lock();
  uint32_t n = cp__ntypes, old = h->ntb;
  if (n > CP_FAST_TYPES && n > old) {
    uint32_t had = old > CP_FAST_TYPES ? old - CP_FAST_TYPES : 0;
    cp_tbin_t *more = malloc((size_t)(n - CP_FAST_TYPES) * sizeof *more);
    if (!more)
      cp__fatal_no_memory("out of memory for a thread's heap (%u types)", n);
    if (had)
      memcpy(more, h->more, (size_t)had * sizeof *more);
    /* Slabs point at their owner's tbin: move the pointers too. */
    for (uint32_t i = 0; i < had; i++)
      for (uint32_t c = 0; c < CP_NCLASSES; c++) {
        cp_bin_t *b = &more[i].bins[c];
        if (b->cur != &cp__slab_none)
          CP_OWN_SET(b->cur->bin, &more[i]);
        for (cp_slab_t *s = b->partial; s; s = s->next)
          CP_OWN_SET(s->bin, &more[i]);
        for (cp_slab_t *s = b->full; s; s = s->next)
          CP_OWN_SET(s->bin, &more[i]);
      }
    free(h->more);
    h->more = more;
  }
  for (uint32_t i = old; i < n; i++)
    tbin_init(cp__tbin_at(h, i));
  if (n > old) {
    CP_OWN_SET(h->ntb, n);
    set_fast(h);
  }
  cp__unlock();
}

static inline cp_tbin_t *tbin_of(cp_heap_t *h, const cp_type_t *t) {
  if (CP_UNLIKELY(t->id >= h->ntb))
    heap_grow(h);
  return cp__tbin_at(h, t->id);
}

static void list_push(cp_slab_t **head, cp_slab_t *s) {
  s->prev = NULL;
  s->next = *head;
  if (*head)
    (*head)->prev = s;
  *head = s;
}

static void list_remove(cp_slab_t **head, cp_slab_t *s) {
  if (s->prev)
    s->prev->next = s->next;
  else
    *head = s->next;
  if (s->next)
    s->next->prev = s->prev;
  s->next = s->prev = NULL;
}

/* The partial list: taken from the head, given back at the tail. */
static void partial_add(cp_bin_t *b, cp_slab_t *s) {
  s->next = NULL;
  s->prev = b->partial_tail;
  if (b->partial_tail)
    b->partial_tail->next = s;
  else
    b->partial = s;
  b->partial_tail = s;
  s->where = CP_IN_PARTIAL;
}

static void partial_remove(cp_bin_t *b, cp_slab_t *s) {
  if (s == b->partial_tail)
    b->partial_tail = s->prev;
  list_remove(&b->partial, s);
}

/* The owner word h puts in s: frees by h's thread take cp_free's fast path
 * unless a flag is set. */
static inline uintptr_t owner_word(const cp_heap_t *h, const cp_slab_t *s,
                                   bool full) {
  return (uintptr_t)h | (full ? CP_OWNER_FULL : 0) |
         (cp__debug ? CP_OWNER_DEBUG : 0) |
         (cp__slot_marked(s->slot) ? 0 : CP_OWNER_UNMARKED);
}
static inline void set_owner(cp_slab_t *s, uintptr_t w) {
  __atomic_store_n(&s->owner, w, __ATOMIC_RELEASE);
}

/* The owner takes s into bin b of h (a new slab, or an adopted orphan). */
static void bin_take(cp_heap_t *h, cp_tbin_t *tb, cp_slab_t *s) {
  CP_OWN_SET(s->bin, tb);
  s->note = CP_NOTE_OFF;
  set_owner(s, owner_word(h, s, false));
  cp_bin_t *b = &tb->bins[s->cls];
  if (b->cur != &cp__slab_none)
    partial_add(b, b->cur);
  b->cur = s;
  s->where = CP_IN_CUR;
}

static void bin_to_partial(cp_heap_t *h, cp_bin_t *b, cp_slab_t *s) {
  list_remove(&b->full, s);
  set_owner(s, owner_word(h, s, false));
  cp__slab_disarm(s);
  partial_add(b, s);
}

/* An empty slab other than the bin's current one goes back to the buddy,
 * unless a freer may still touch its header (it is pending on the
 * notification stack, or a freer is NOTIFYING): then it stays, and is
 * reused or released later. */
static void maybe_release(cp_bin_t *b, cp_slab_t *s) {
  if (s == b->cur || s->where != CP_IN_PARTIAL || s->note != CP_NOTE_OFF ||
      !cp__slab_quiet(s))
    return;
  cp__slab_check_empty(s);
  partial_remove(b, s);
  cp__lock();
  cp__slab_release(cp__current_arena(), s);
  cp__unlock();
}

/* Empties the notification stack: full slabs that got remote frees go
 * back to their partial list. */
static void drain_notes(cp_heap_t *h) {
  if (!__atomic_load_n(&h->notes, __ATOMIC_RELAXED))
    return;
  cp_slab_t *l = __atomic_exchange_n(&h->notes, NULL, __ATOMIC_ACQUIRE);
  while (l) {
    cp_slab_t *s = l;
    l = s->next_note; /* before s can be armed and pushed again */
    s->note = CP_NOTE_OFF;
    cp_bin_t *b = &CP_OWN_GET(s->bin)->bins[s->cls];
    cp__slab_collect(s);
    if (s->where == CP_IN_FULL) {
      if (s->free != CP_NONE || !cp__slab_arm(s)) {
        cp__slab_collect(s);
        bin_to_partial(h, b, s);
      }
    }
    if (s->used == 0)
      maybe_release(b, s);
  }
}

/* Only other threads free remotely: while the process has one, full slabs
 * are not armed (a compare-and-swap each way saved); once it has more,
 * each heap arms its full slabs at its next slow path. */
static inline bool several_threads(void) {
  return __atomic_load_n(&cp__nthreads, __ATOMIC_RELAXED) > 1;
}

static void arm_full_slabs(cp_heap_t *h) {
  h->unarmed = false;
  for (uint32_t k = 0; k < h->ntb; k++)
    for (uint32_t c = 0; c < CP_NCLASSES; c++) {
      cp_bin_t *b = &cp__tbin_at(h, k)->bins[c];
      for (cp_slab_t *s = b->full, *n; s; s = n) {
        n = s->next;
        if (s->note == CP_NOTE_OFF && !cp__slab_arm(s)) {
          cp__slab_collect(s);
          bin_to_partial(h, b, s);
        }
      }
    }
}

/* Slab s of bin b (not the current one, or about to stop being it) has
 * nothing left: it goes to the full list, armed, unless remote frees
 * arrived meanwhile (then it stays out of every list and the caller uses
 * it: true). */
static bool retire(cp_heap_t *h, cp_bin_t *b, cp_slab_t *s) {
  if (s->note == CP_NOTE_OFF && !several_threads())
    h->unarmed = true;
  else if (s->note == CP_NOTE_OFF && !cp__slab_arm(s))
    return cp__slab_collect(s) != 0; /* keep it: it has room again */
  b->cur = &cp__slab_none;
  s->where = CP_IN_FULL;
  set_owner(s, owner_word(h, s, true));
  list_push(&b->full, s);
  return false;
}

/* Takes an orphan of (t, cls) with free slots, if any.  Heap lock held. */
static cp_slab_t *adopt_orphan(cp_type_t *t, uint32_t cls) {
  cp_slab_t **head = &t->orphans[cls];
  for (int tries = 0; *head && tries < 16; tries++) {
    cp_slab_t *s = *head;
    cp__slab_collect(s);
    list_remove(head, s);
    if (s->free != CP_NONE || s->bump < s->nslots)
      return s;
    /* Full: to the back, so the next look starts elsewhere. */
    cp_slab_t *tail = *head;
    if (!tail) {
      *head = s;
      return NULL;
    }
    while (tail->next)
      tail = tail->next;
    tail->next = s;
    s->prev = tail;
  }
  return NULL;
}

/* Releases orphans that remote frees emptied.  Heap lock held. */
static void sweep_orphans(void) {
  uint64_t n = __atomic_load_n(&orphan_frees, __ATOMIC_RELAXED);
  if (n == orphan_frees_swept)
    return;
  orphan_frees_swept = n;
  cp_arena_t *a = cp__current_arena();
  for (uint32_t k = 0; k < cp__ntypes; k++)
    for (uint32_t c = 0; c < CP_NCLASSES; c++) {
      cp_slab_t **head = &cp__types[k]->orphans[c];
      for (cp_slab_t *s = *head, *next; s; s = next) {
        next = s->next;
        cp__slab_collect(s);
        if (s->used == 0) {
          cp__slab_check_empty(s);
          list_remove(head, s);
          cp__slab_release(a, s);
        }
      }
    }
}

/* Does s (the owner's) have a free slot on its free list, once remote
 * frees are collected and never-used slots added if need be?  The usual
 * answers (it has a list; nothing to collect and nothing to add) without
 * a call: in a heap that frees at random, about one allocation in five
 * asks this of a slab that has none. */
static inline bool slab_has_room(cp_slab_t *s) {
  if (s->free != CP_NONE)
    return true;
  if ((__atomic_load_n(&s->xfree, __ATOMIC_RELAXED) & CP_XF_HEAD) != CP_NONE &&
      cp__slab_collect(s))
    return true;
  return cp__bump(s) < s->nslots && cp__slab_extend(s);
}

/* A slab of bin (t, cls) of h with a free slot on its free list, or NULL
 * (try_only, arena exhausted).  A current slab that runs dry goes to the
 * back of the partial list, not to the full list, while other slabs wait
 * there: frees into it then stay on the fast path, and by the time it is
 * at the front again it has gathered them.  A slab that is still dry when
 * it comes back is full. */
static __attribute__((noinline)) cp_slab_t *
bin_refill_slow(cp_heap_t *h, cp_tbin_t *tb, cp_type_t *t, uint32_t cls,
                bool try_only) {
  cp_bin_t *b = &tb->bins[cls];
  cp_slab_t *s = b->cur;
  if (s != &cp__slab_none) {
    if (slab_has_room(s))
      return s;
    b->cur = &cp__slab_none;
    if (b->partial)
      partial_add(b, s);
    else if (retire(h, b, s))
      goto use; /* remote frees arrived meanwhile */
  }
  if (CP_UNLIKELY(h->unarmed) && several_threads())
    arm_full_slabs(h);
  drain_notes(h);
  while (b->partial) {
    s = b->partial;
    partial_remove(b, s);
    if (slab_has_room(s) || retire(h, b, s))
      goto use;
  }
  cp__lock();
  s = adopt_orphan(t, cls);
  if (!s) {
    sweep_orphans();
    cp_arena_t *a = cp__current_arena();
    uint32_t slot = cp__slot_bytes(t->slot, cls);
    s = cp__slab_new(a, t, cls, t->slot, cp__slots_per_slab(slot), try_only);
    if (!s) {
      cp__note_exhausted();
      cp__unlock();
      return NULL;
    }
    if (!a->wide)
      cp__watch_high_water();
    note_peak(t);
  }
  cp__unlock();
  bin_take(h, tb, s); /* an orphan with room, or a fresh slab */
  if (s->free == CP_NONE && !cp__slab_extend(s))
    cp__fatal("internal error: a slab taken for allocation has no room");
  return s;
use:
  b->cur = s;
  s->where = CP_IN_CUR;
  return s;
}

/* bin_refill_slow's usual case: the current slab s of bin b is dry for
 * good (nothing to collect, nothing left to add), the first partial slab
 * n has a free list, and there is nothing to arm or take in. */
static inline bool turn_is_plain(const cp_heap_t *h, const cp_slab_t *s,
                                 const cp_slab_t *n) {
  return s != &cp__slab_none && n && n->free != CP_NONE &&
         s->free == CP_NONE && cp__bump(s) >= s->nslots &&
         (__atomic_load_n(&s->xfree, __ATOMIC_RELAXED) & CP_XF_HEAD) ==
             CP_NONE &&
         !(h->unarmed && several_threads()) &&
         !__atomic_load_n(&h->notes, __ATOMIC_RELAXED);
}
/* ... and what it does: s goes to the back of the line and n takes its
 * place. */
static inline void turn(cp_bin_t *b, cp_slab_t *s, cp_slab_t *n) {
  partial_remove(b, n);
  partial_add(b, s);
  b->cur = n;
  n->where = CP_IN_CUR;
}

static inline cp_slab_t *bin_refill(cp_heap_t *h, cp_tbin_t *tb, cp_type_t *t,
                                    uint32_t cls, bool try_only) {
  cp_bin_t *b = &tb->bins[cls];
  cp_slab_t *s = b->cur, *n = b->partial;
  if (CP_LIKELY(turn_is_plain(h, s, n))) {
    turn(b, s, n);
    return n;
  }
  return bin_refill_slow(h, tb, t, cls, try_only);
}

/* Takes the first free slot of s (the owner's). */
static _Noreturn void bad_free_list(const cp_slab_t *s, const void *p);
static inline bool is_free_mark(uint32_t m);
static inline void *slab_pop(cp_slab_t *s) {
  char *p = s->start + s->free;
  if (cp__slot_marked(s->slot) && !cp__debug && !is_free_mark(cp__mark_of(p)))
    bad_free_list(s, p);
  s->free = *(uint32_t *)p;
  CP_OWN_ADD(s->used, 1);
  if (CP_UNLIKELY(cp__debug)) {
    uint64_t i = cp__slot_index(s, (uint64_t)(p - s->start));
    __atomic_fetch_or(&s->live[i >> 6], (uint64_t)1 << (i & 63),
                      __ATOMIC_RELAXED);
  }
  return p;
}

static void *alloc_block(cp_heap_t *h, cp_type_t *t, uint64_t n,
                         bool try_only) {
  cp_tbin_t *tb = tbin_of(h, t);
  cp__lock();
  cp_arena_t *a = cp__current_arena();
  cp_slab_t *s = cp__block_new(a, t, t->slot, n, true, try_only);
  if (!s) {
    cp__note_exhausted();
    cp__unlock();
    return NULL;
  }
  if (!a->wide)
    cp__watch_high_water();
  note_peak(t);
  cp__unlock();
  count_alloc(tb, n);
  cp__buddy_zero(a, s->start, (size_t)s->slot * n);
  return s->start;
}

void *cp__heap_alloc_slow(cp_type_desc_t *d, uint32_t cls, bool try_only) {
  cp_type_t *t = type_of(d);
  cp_heap_t *h = cp__my_heap();
  if (cls == 0 && (size_t)cp__slot_bytes(t->slot, 0) > CP_LARGE_OBJECT)
    return alloc_block(h, t, 1, try_only);
  cp_tbin_t *tb = tbin_of(h, t);
  cp_slab_t *s = tb->bins[cls].cur;
  if (s->free == CP_NONE)
    s = bin_refill(h, tb, t, cls, try_only);
  if (!s)
    return NULL;
  char *p = slab_pop(s);
  count_alloc(tb, s->elems);
  cp__zero_slot(p, s->slot);
  return p;
}

/* A slot popped from a free list must carry a free mark (slots of 8 bytes
 * or more): a slot freed twice comes off the list a second time zeroed or
 * in use, an interior or foreign address never had one, and a write into a
 * freed object overwrote it.  Checked here, where the slot's line is read
 * anyway, rather than in cp_free, where it would cost a load. */
static _Noreturn void bad_free_list(const cp_slab_t *s, const void *p) {
  cp__fatal("the free list of a '%s' slab holds %p, which is not free: an "
            "object was freed twice, a pointer into an object or one the "
            "runtime never handed out was freed, or a freed object was "
            "written to (run with COMPACTPTR_DEBUG=1 to stop at the bad "
            "free itself)", s->type->desc->name, p);
}
static inline bool is_free_mark(uint32_t m) { return cp__is_free_mark(m); }

/* Takes slot p off the free list of s (a current slab of class 0; its
 * free mark checked; the allocation counted) and clears it.  Written for
 * one slot size range at a time (16 to 32 bytes, the usual node; 8 to 15;
 * 33 to 64), so the clearing folds to a few stores. */
static inline __attribute__((always_inline)) void *
pop_zeroed(cp_slab_t *s, char *p, uint32_t slot) {
  s->free = *(uint32_t *)p;
  CP_OWN_ADD(s->used, 1);
  cp__zero_slot(p, slot);
  return p;
}

/* Other slot sizes, out of line (a tail call), so the fast path keeps no
 * register of its own. */
static __attribute__((noinline)) void *
pop_other_size(cp_slab_t *s, char *p, uint32_t slot) {
  if (cp__slot_marked(slot) && !is_free_mark(cp__mark_of(p)))
    bad_free_list(s, p);
  void *r = pop_zeroed(s, p, slot);
  /* Opaque, so the caller does not keep p alive across the call to return
   * it itself (which would cost the tail call and a saved register). */
  __asm__("" : "+r"(r));
  return r;
}

/* Tells the compiler what the branch just tested, so the size dispatch
 * inside pop_zeroed folds away. */
#if defined(__clang__)
#define CP_ASSUME(c) __builtin_assume(c)
#else
#define CP_ASSUME(c) ((c) ? (void)0 : __builtin_unreachable())
#endif

/* The bins at byte offset `at` of h's fast table (cp__rt_bin of a
 * descriptor's rt): an address computed, not loaded. */
static inline cp_tbin_t *tbin_at_offset(cp_heap_t *h, uint64_t at) {
  return (cp_tbin_t *)((char *)h->tb + at);
}

/* The current slab of class 0 of tb ran dry (alloc_one, which counted the
 * allocation), as it does every few allocations in a heap that frees at
 * random: the plain turn to the next slab and the pop from it, with what
 * the fast path already holds (no type look-up, no class or size test, no
 * stack frame); anything else, and a slot whose free mark is wrong, goes
 * down the slow path, which counts it itself. */
typedef void *slow_fn(cp_type_desc_t *d, uint32_t cls, bool try_only);
static inline __attribute__((always_inline)) void *
turn_and_pop(cp_type_desc_t *d, cp_heap_t *h, cp_tbin_t *tb, bool try_only,
             slow_fn *slow) {
  cp_bin_t *b = &tb->bins[0];
  cp_slab_t *s = b->cur, *n = b->partial;
  if (CP_LIKELY(turn_is_plain(h, s, n))) {
    turn(b, s, n);
    char *p = n->start + n->free;
    uint32_t slot = n->slot;
    if (CP_LIKELY(cp__slot_marked(slot) && cp__is_free_mark(cp__mark_of(p)))) {
      n->free = *(uint32_t *)p;
      CP_OWN_ADD(n->used, 1);
      cp__zero_slot(p, slot);
      return p;
    }
  }
  count_alloc(tb, (uint64_t)-1);
  return slow(d, 0, try_only);
}
/* (The bins as alloc_one found them, h->tb + at: recomputed here, so the
 * fast path keeps no register for them.) */
typedef void *turn_fn(cp_type_desc_t *d, cp_heap_t *h, uint64_t at);
static __attribute__((noinline)) void *
alloc_turn(cp_type_desc_t *d, cp_heap_t *h, uint64_t at) {
  return turn_and_pop(d, h, tbin_at_offset(h, at), false,
                      cp__heap_alloc_slow);
}
static __attribute__((noinline)) void *
try_alloc_turn(cp_type_desc_t *d, cp_heap_t *h, uint64_t at) {
  return turn_and_pop(d, h, tbin_at_offset(h, at), true,
                      cp__heap_alloc_slow);
}

/* The allocation fast path: the descriptor's rt leads straight to the
 * calling thread's bins of the type (a subtraction, cp__rt_bin, and one
 * compare with the heap's bound, which a descriptor not yet resolved and a
 * heap without room for the type fail), then the current slab's free
 * list.  The allocation is counted as soon as the bins are found (one add
 * at h + at, before h and at are needed for anything else), and
 * uncounted on the ways out that count it again.  A slot whose free mark
 * is wrong goes down the slow path, which pops it again and reports it;
 * every other way out is a tail call too, so the path needs no stack
 * frame. */
static inline __attribute__((always_inline)) void *
alloc_one(cp_type_desc_t *d, bool try_only, slow_fn *slow, turn_fn *dry) {
  cp_heap_t *h = cp__heap;
  uint64_t at = cp__rt_bin(__atomic_load_n(&d->rt, __ATOMIC_RELAXED));
  if (CP_LIKELY(at < __atomic_load_n(&h->nfast, __ATOMIC_RELAXED))) {
    cp_tbin_t *tb = tbin_at_offset(h, at); /* no load */
    count_alloc(tb, 1);
    cp_slab_t *s = tb->bins[0].cur;
    uint32_t off = s->free;
    /* Compared with CP_NONE, not tested for the sign bit, which compiles
     * to a sign-extending load (movslq): on the Intel core of 2026-12-07
     * such a load of a value the previous pop had just stored took twice
     * as long as a plain one (8.2 against 4.1 TSC ticks per pop in a bare
     * chain; cp_alloc in allocbench's lifo 8.9 -> 6.2). */
    if (CP_UNLIKELY(off == CP_NONE))
      return dry(d, h, at);
    char *p = s->start + off;
    uint32_t at16 = s->slot16;
    if (CP_LIKELY(at16 <= 16)) {
      /* 16 to 32 bytes: two 16-byte stores, at p and p + at16. */
      if (CP_LIKELY(cp__is_free_mark(cp__mark_of(p))))
        return pop_zeroed(s, p, at16 + 16);
    } else if (CP_LIKELY(at16 <= 48)) {
      /* 33 to 64 bytes: four 16-byte stores. */
      CP_ASSUME(at16 >= 17);
      if (CP_LIKELY(cp__is_free_mark(cp__mark_of(p))))
        return pop_zeroed(s, p, at16 + 16);
    } else if (CP_LIKELY(at16 + 8 <= 7)) {
      /* 8 to 15 bytes (two or three handles, a key and a handle): two
       * 8-byte stores.  Unscaled handles make these sizes common. */
      CP_ASSUME(at16 + 16 >= 8 && at16 + 16 <= 15);
      if (CP_LIKELY(cp__is_free_mark(cp__mark_of(p))))
        return pop_zeroed(s, p, at16 + 16);
    } else {
      return pop_other_size(s, p, at16 + 16);
    }
    /* A wrong free mark. */
    count_alloc(tbin_at_offset(h, at), (uint64_t)-1);
  }
  return slow(d, 0, try_only);
}

void *cp_alloc(cp_type_desc_t *d) {
  return alloc_one(d, false, cp__heap_alloc_slow, alloc_turn);
}

/* Compared with malloc's address as this library sees it, which the
 * dynamic linker makes the program's too (a function's address is one
 * across the process), interposed allocators included. */
int cp_hook_is_malloc(const void *fn) { return fn == (const void *)&malloc; }
/* free as the program's files see it: libc's where a file was built
 * without compactptr.h, cp_free_any where it was (the header links free
 * there). */
int cp_hook_is_free(const void *fn) {
  return fn == (const void *)&free || fn == (const void *)&cp_free_any ||
         fn == (const void *)&cp_free;
}
void *cp_try_alloc(cp_type_desc_t *d) {
  return alloc_one(d, true, cp__heap_alloc_slow, try_alloc_turn);
}
/* The slow path of an allocation at a safepoint: NULL while a switch is
 * pending, so the caller's slow path saves its roots and runs it.  Only
 * here: a pending switch turns every heap's fast path off (set_fast), and
 * with it the turn, which a pending switch therefore never reaches. */
static __attribute__((noinline)) void *
safepoint_alloc_slow(cp_type_desc_t *d, uint32_t cls, bool try_only) {
  if (CP_UNLIKELY(__atomic_load_n(&cp__switch_pending, __ATOMIC_RELAXED)))
    return NULL;
  return cp__heap_alloc_slow(d, cls, try_only);
}
static __attribute__((noinline)) void *
safepoint_alloc_turn(cp_type_desc_t *d, cp_heap_t *h, uint64_t at) {
  return turn_and_pop(d, h, tbin_at_offset(h, at), true,
                      safepoint_alloc_slow);
}
/* The allocation at a safepoint (cp__alloc_fast).  One call rather than
 * a test inline in the caller: a caller whose fast path is one call keeps
 * its values in callee-saved registers (with a test inline, clang moved
 * eight of them in and out of caller-saved ones around the call). */
void *cp__try_alloc_at_safepoint(cp_type_desc_t *d) {
  return alloc_one(d, true, safepoint_alloc_slow, safepoint_alloc_turn);
}

static void *alloc_array(cp_type_desc_t *d, size_t n, bool try_only) {
  if (n == 0)
    n = 1;
  cp_type_t *t = type_of(d);
  if (n > SIZE_MAX / t->wide_slot) {
    if (try_only)
      return NULL;
    cp__fatal("array of %zu '%s' objects: size overflows", n, d->name);
  }
  if (n == 1)
    return alloc_one(d, try_only, cp__heap_alloc_slow,
                     try_only ? try_alloc_turn : alloc_turn);
  uint32_t cls = 1;
  while (cls < CP_NCLASSES - 1 && ((size_t)1 << cls) < n)
    cls++;
  if (((size_t)1 << cls) >= n && ((size_t)t->slot << cls) <= CP_SMALL_ARRAY)
    return cp__heap_alloc_slow(d, cls, try_only);
  return alloc_block(cp__my_heap(), t, n, try_only);
}

/* The count of objects for `bytes` past the member's offset `at`, the
 * elements counted in units of `unit` bytes. */
static size_t flex_count(cp_type_desc_t *d, cp_type_t *t, size_t bytes,
                         uint32_t at, size_t unit) {
  size_t room = bytes > at ? bytes - at : 0;
  if (room > SIZE_MAX / 2)
    cp__fatal("'%s' with a flexible array member of %zu bytes: size "
              "overflows",
              d->name, room);
  /* Elements that differ between the layouts: as many of them as the
   * room holds in the program's unit, in each layout's size. */
  size_t croom = room, wroom = room;
  if (t->flex_kind != CP_FIELD_BYTES) {
    size_t n = (room + unit - 1) / unit;
    croom = n * t->flex_celem;
    wroom = n * t->flex_welem;
  }
  /* One byte more than asked: the address one past the elements (`end =
   * b->text + b->len`) then lies inside the object, never at the start of
   * the next slot, where the switch would take it for that slot's.  A
   * compact-only program never switches: room for its own layout only. */
  croom++, wroom++;
  size_t kc = (t->flex_compact + croom + d->compact_size - 1) / d->compact_size,
         kw = (t->flex_wide + wroom + d->wide_size - 1) / d->wide_size;
  size_t k = cp__build == CP_BUILD_COMPACT_ONLY || kc > kw ? kc : kw;
  return k ? k : 1;
}

static cp_type_t *flex_type(cp_type_desc_t *d, const char *fn) {
  cp_type_t *t = type_of(d);
  if (!t->flex)
    cp__fatal("%s: type '%s' has no flexible array member", fn, d->name);
  return t;
}

size_t cp_flex_count(cp_type_desc_t *d, size_t bytes) {
  cp_type_t *t = flex_type(d, "cp_flex_count");
  /* The bytes were counted in the layout of the moment (the program's
   * sizeof); the member's room is what lies past its offset there. */
  bool wide = cp__wide || cp__build == CP_BUILD_WIDE;
  /* Compact pointers are counted in native pointers (sizeof(struct node
   * *) is 8 in either layout), values in their type's size of the moment. */
  size_t unit = t->flex_kind == CP_FIELD_HANDLE ? sizeof(void *)
                : wide                          ? t->flex_welem
                                                : t->flex_celem;
  return flex_count(d, t, bytes, wide ? t->flex_wide : t->flex_compact, unit);
}

size_t cp_flex_count_any(cp_type_desc_t *d, size_t bytes) {
  cp_type_t *t = flex_type(d, "cp_flex_count_any");
  /* Counted in either layout: a switchable program's room lies past the
   * smaller offset; a program of one layout has only its own. */
  uint32_t at = cp__build == CP_BUILD_COMPACT_ONLY ? t->flex_compact
                : cp__build == CP_BUILD_WIDE       ? t->flex_wide
                : t->flex_compact < t->flex_wide   ? t->flex_compact
                                                   : t->flex_wide;
  /* Values counted in either size: the smaller one is never short. */
  size_t unit = t->flex_kind == CP_FIELD_HANDLE      ? sizeof(void *)
                : cp__build == CP_BUILD_COMPACT_ONLY ? t->flex_celem
                : cp__build == CP_BUILD_WIDE         ? t->flex_welem
                : t->flex_celem < t->flex_welem      ? t->flex_celem
                                                     : t->flex_welem;
  return flex_count(d, t, bytes, at, unit);
}

void *cp_alloc_array(cp_type_desc_t *d, size_t n) {
  return alloc_array(d, n, false);
}
void *cp_try_alloc_array(cp_type_desc_t *d, size_t n) {
  return alloc_array(d, n, true);
}
void *cp__try_alloc_array_at_safepoint(cp_type_desc_t *d, size_t n) {
  if (CP_UNLIKELY(__atomic_load_n(&cp__switch_pending, __ATOMIC_RELAXED)))
    return NULL;
  return alloc_array(d, n, true);
}

/* ---- free ---------------------------------------------------------------- */

cp_slab_t *cp__find_slab(const void *p) {
  cp_slab_t *s = cp__slab_of(&cp__compact_arena, p);
  if (!s)
    s = cp__slab_of(&cp__wide_arena, p);
  return s;
}

static _Noreturn void foreign_free(const void *p) {
  cp__fatal("free of %p: not an object allocated by compactptr in %s mode "
            "(foreign pointer, or memory already released)",
            p, cp__wide ? "wide" : "compact");
}

/* The owner frees slot p of s, which has been validated. */
static void free_local(cp_heap_t *h, cp_slab_t *s, void *p, uintptr_t o) {
  *(uint32_t *)p = s->free;
  s->free = (uint32_t)((char *)p - s->start);
  cp_bin_t *b = &CP_OWN_GET(s->bin)->bins[s->cls];
  if (o & CP_OWNER_FULL)
    bin_to_partial(h, b, s);
  if (cp__own_dec_is_zero(&s->used))
    maybe_release(b, s);
}

static void free_block(cp_slab_t *s, void *p) {
  if ((char *)p != s->start)
    cp__bad_pointer("free", s, p);
  cp__lock();
  cp__slab_release(cp__current_arena(), s);
  cp__unlock();
}

void cp__free_slow(cp_slab_t *s, void *p) {
  uintptr_t o = cp__owner(s);
  if (o & CP_OWNER_BLOCK) {
    free_block(s, p);
    return;
  }
  uint64_t off = (uint64_t)((char *)p - s->start);
  uint64_t i = cp__slot_index(s, off);
  if (i >= cp__bump(s) || i * s->slot != off)
    cp__bad_pointer("free", s, p);
  if (cp__debug) {
    uint64_t bit = (uint64_t)1 << (i & 63);
    if (!(__atomic_fetch_and(&s->live[i >> 6], ~bit, __ATOMIC_RELAXED) & bit))
      cp__bad_pointer("free", s, p);
  } else if (cp__slot_marked(s->slot)) {
    if (cp__is_free_mark(cp__mark_of(p)))
      cp__bad_pointer("free", s, p);
  }
  if (cp__slot_marked(s->slot))
    cp__mark_set(p);
  cp_heap_t *h = cp__my_heap();
  if ((o & ~CP_OWNER_FLAGS) == (uintptr_t)h) {
    free_local(h, s, p, o);
    return;
  }
  cp__slab_push_remote(s, p);
  if (o == 0)
    __atomic_fetch_add(&orphan_frees, 1, __ATOMIC_RELAXED);
}

/* cp_free's rare cases, reached by a tail call so the fast path needs no
 * stack frame: NULL, foreign pointers, blocks, and the slow path. */
static __attribute__((noinline)) void free_other(void *p) {
  if (!p)
    return;
  uint64_t off = (uint64_t)((uintptr_t)p - (uintptr_t)CP_OWN_GET(cp__fast.base));
  cp_slab_t *s = off < CP_OWN_GET(cp__fast.span)
                     ? CP_OWN_GET(cp__fast.pagemap)[off >> CP_PAGE_SHIFT]
                     : NULL;
  if (!s)
    foreign_free(p);
  cp__free_slow(s, p);
}

/* cp_free missed its fast path on slab s, found by p's region: the slow
 * path if p is in s, else the full look-up (p is elsewhere: a block, or an
 * address in a region of another arena that the slab map's index folds
 * onto s's). */
static __attribute__((noinline)) void free_miss(cp_slab_t *s, void *p) {
  if ((uint64_t)((char *)p - s->start) < cp__span_of(s))
    cp__free_slow(s, p);
  else
    free_other(p);
}

void cp_free(void *p) {
  cp_slab_t *s = __atomic_load_n(
      &CP_OWN_GET(cp__fast.slabmap)[((uintptr_t)p >> CP_SLAB_MIN_SHIFT) &
                                    CP_OWN_GET(cp__fast.slabmask)],
      __ATOMIC_RELAXED);
  if (CP_UNLIKELY(!s))
    return free_other(p); /* NULL, a block, or nothing */
  /* The owner's free checks that p is a slot handed out from this slab
   * (cp__slot_handed, on the header's first line; the bound on the offset
   * turns away an address outside s too; what it costs is in
   * docs/runtime.md, "Checks on free").  Whether the slot
   * is still live is checked when it comes off the free list again
   * (alloc_one), so the object itself is only written, never read. */
  uint64_t so = (uint64_t)((char *)p - s->start);
  if (CP_UNLIKELY(__atomic_load_n(&s->owner, __ATOMIC_RELAXED) !=
                      (uintptr_t)cp__heap ||
                  !cp__slot_handed(s, so)))
    return free_miss(s, p);
  cp__mark_set(p);
  *(uint32_t *)p = s->free;
  s->free = (uint32_t)so;
  if (CP_UNLIKELY(cp__own_dec_is_zero(&s->used)))
    return maybe_release(&CP_OWN_GET(s->bin)->bins[s->cls], s);
}

size_t cp_object_count(const void *p) {
  cp_slab_t *s = p ? cp__slab_of(cp__current_arena(), p) : NULL;
  if (!s || !cp__is_object_start(s, p)) /* an interior address too */
    return 0;
  return s->kind == CP_BLOCK ? (size_t)s->count : s->elems;
}

/* try_only: NULL where the compact arena cannot serve a new array (the
 * switch is pending then, as for cp_try_alloc_array), p left as it is. */
static void *realloc_array(cp_type_desc_t *d, void *p, size_t n, bool try_only) {
  if (!p)
    return n ? alloc_array(d, n, try_only) : NULL;
  if (n == 0) {
    cp_free(p);
    return NULL;
  }
  cp_type_t *t = type_of(d);
  cp_slab_t *s = cp__slab_of(cp__current_arena(), p);
  if (!s)
    foreign_free(p);
  /* p must be a live object or array: a freed slot, an interior or a
   * never-allocated address is as fatal as it is for cp_free. */
  if (!cp__is_object_start(s, p))
    cp__bad_pointer("realloc", s, p);
  if (s->type != t)
    cp__fatal("realloc of %p as '%s': the object is a '%s'", p, d->name,
              s->type->desc->name);
  size_t old = s->kind == CP_BLOCK ? (size_t)s->count : s->elems;
  size_t elem = s->elem;
  if (n <= old && (s->kind == CP_SLAB || n > old / 2)) {
    /* Room enough, and shrinking would save less than half.  The dropped
     * elements are cleared: growing back in place reads zeros, as a fresh
     * allocation does, and no stale handle stays behind in the capacity
     * for the switch and the verifier to follow. */
    memset((char *)p + n * elem, 0, (old - n) * elem);
    return p;
  }
  void *q = alloc_array(d, n, try_only);
  if (!q)
    return NULL;
  size_t bytes = elem * (n < old ? n : old), moved = 0;
  /* Between blocks of a commit chunk or more, the whole chunks move as
   * pages, as glibc's realloc moves a large block with mremap: a calloc'd
   * array barely used and then grown kept its native build's footprint
   * (9 MB), where copying made every page of it resident (43 MB). */
  cp_arena_t *a = cp__current_arena();
  cp_slab_t *r = s->kind == CP_BLOCK && bytes >= ((size_t)1 << CP_COMMIT_SHIFT)
                     ? cp__slab_of(a, q)
                     : NULL;
  if (r && r->kind == CP_BLOCK && cp__slab_of(a, p) == s &&
      s->order >= CP_COMMIT_SHIFT - CP_PAGE_SHIFT &&
      r->order >= CP_COMMIT_SHIFT - CP_PAGE_SHIFT &&
      cp__buddy_move(a, p, q, bytes & ~(((size_t)1 << CP_COMMIT_SHIFT) - 1)))
    moved = bytes & ~(((size_t)1 << CP_COMMIT_SHIFT) - 1);
  memcpy((char *)q + moved, (char *)p + moved, bytes - moved);
  cp_free(p);
  return q;
}
void *cp_realloc_array(cp_type_desc_t *d, void *p, size_t n) {
  return realloc_array(d, p, n, false);
}
void *cp_try_realloc_array(cp_type_desc_t *d, void *p, size_t n) {
  return realloc_array(d, p, n, true);
}

/* ---- the end of a heap --------------------------------------------------- */

typedef void (*slab_fn)(cp_heap_t *h, cp_slab_t *s, void *ctx);

/* Calls fn on every slab h owns; fn may unlink the slab it is given. */
static void each_owned(cp_heap_t *h, slab_fn fn, void *ctx) {
  for (uint32_t k = 0; k < h->ntb; k++)
    for (uint32_t c = 0; c < CP_NCLASSES; c++) {
      cp_bin_t *b = &cp__tbin_at(h, k)->bins[c];
      if (b->cur != &cp__slab_none)
        fn(h, b->cur, ctx);
      for (cp_slab_t *s = b->partial, *n; s; s = n) {
        n = s->next;
        fn(h, s, ctx);
      }
      for (cp_slab_t *s = b->full, *n; s; s = n) {
        n = s->next;
        fn(h, s, ctx);
      }
    }
}

static void disarm_one(cp_heap_t *h, cp_slab_t *s, void *ctx) {
  (void)h;
  cp__slab_disarm(s);
  if (s->note == CP_NOTE_PENDING)
    ++*(int *)ctx;
}

static void quiet_one(cp_heap_t *h, cp_slab_t *s, void *ctx) {
  (void)h, (void)ctx;
  cp__slab_wait_quiet(s);
}

/* Every slab of h goes back to the buddy (empty) or to its type's orphans.
 * Heap lock held; no freer is NOTIFYING any of them. */
static void orphan_one(cp_heap_t *h, cp_slab_t *s, void *ctx) {
  (void)h;
  bool after_fork = ctx != NULL; /* counts may be torn: no check */
  cp__slab_collect(s);
  set_owner(s, 0);
  CP_OWN_SET(s->bin, NULL);
  s->note = CP_NOTE_OFF;
  s->next = s->prev = NULL;
  if (s->used == 0) {
    if (!after_fork)
      cp__slab_check_empty(s);
    cp__slab_release(cp__current_arena(), s);
    return;
  }
  s->where = CP_IN_ORPHANS;
  list_push(&s->type->orphans[s->cls], s);
}

static void heap_free(cp_heap_t *h) {
  free(h->more);
  cp__os_free(h, heap_bytes);
}

/* Unlinks h and moves its allocation counts to the types.  Heap lock
 * held. */
static void heap_forget(cp_heap_t *h) {
  for (uint32_t k = 0; k < h->ntb && k < cp__ntypes; k++) {
    cp__types[k]->gone_allocs += cp__tbin_at(h, k)->allocs;
  }
  if (h->prev)
    h->prev->next = h->next;
  else
    cp__heaps = h->next;
  if (h->next)
    h->next->prev = h->prev;
}

void cp__heap_abandon(cp_heap_t *h) {
  /* No freer may push on h's stack once it is gone: disarm every slab,
   * take in the ones already pushed, and wait out the pushes in flight. */
  drain_notes(h);
  int pending = 0;
  each_owned(h, disarm_one, &pending);
  while (pending) {
    cp_slab_t *l = __atomic_exchange_n(&h->notes, NULL, __ATOMIC_ACQUIRE);
    for (; l; l = l->next_note)
      if (l->note == CP_NOTE_PENDING) {
        l->note = CP_NOTE_OFF;
        pending--;
      }
    if (pending)
      sched_yield();
  }
  each_owned(h, quiet_one, NULL);
  cp__lock();
  each_owned(h, orphan_one, NULL);
  heap_forget(h);
  cp__unlock();
  heap_free(h);
}

/* In the child of fork: threads that were between two steps of the remote
 * free protocol in the parent are gone, so flags are cleared by force. */
static void reset_one(cp_heap_t *h, cp_slab_t *s, void *ctx) {
  (void)ctx;
  __atomic_fetch_and(&s->xfree, ~(CP_XF_NOTIFY | CP_XF_NOTIFYING),
                     __ATOMIC_RELAXED);
  s->note = CP_NOTE_OFF;
  if (s->where == CP_IN_FULL) {
    cp__slab_collect(s);
    cp_bin_t *b = &cp__tbin_at(h, s->type->id)->bins[s->cls];
    if (s->free != CP_NONE || !cp__slab_arm(s)) {
      cp__slab_collect(s);
      bin_to_partial(h, b, s);
    }
  }
}

void cp__heap_after_fork(cp_heap_t *self) {
  for (cp_heap_t *h = cp__heaps; h; h = h->next)
    h->notes = NULL;
  if (self)
    each_owned(self, reset_one, NULL);
  /* The other threads are gone, and their bins' lists may be torn: fork
   * stops a thread anywhere in its lock-free owner code, e.g. in the
   * middle of a turn, with a slab out of every list (its counterpart at a
   * later switch went into the freed heap: a crash in the child) or in
   * two.  So their slabs are found through each type's list of all slabs,
   * which the heap lock, held across fork, keeps whole, by their owner
   * word. */
  for (uint32_t k = 0; k < cp__ntypes; k++)
    for (cp_slab_t *s = cp__types[k]->all, *n; s; s = n) {
      n = s->next_all;
      uintptr_t o = __atomic_load_n(&s->owner, __ATOMIC_RELAXED) & ~CP_OWNER_FLAGS;
      if (s->kind == CP_SLAB && o && o != (uintptr_t)self)
        orphan_one(NULL, s, (void *)1);
    }
  for (cp_heap_t *h = cp__heaps, *next; h; h = next) {
    next = h->next;
    if (h != self) {
      heap_forget(h);
      heap_free(h);
    }
  }
  for (uint32_t k = 0; k < cp__ntypes; k++)
    for (uint32_t c = 0; c < CP_NCLASSES; c++)
      for (cp_slab_t *s = cp__types[k]->orphans[c]; s; s = s->next)
        __atomic_fetch_and(&s->xfree, ~(CP_XF_NOTIFY | CP_XF_NOTIFYING),
                           __ATOMIC_RELAXED);
}

/* ---- the switch ---------------------------------------------------------- */

void cp__heaps_forget_slabs(void) {
  for (cp_heap_t *h = cp__heaps; h; h = h->next) {
    h->notes = NULL;
    for (uint32_t k = 0; k < h->ntb; k++)
      for (uint32_t c = 0; c < CP_NCLASSES; c++)
        cp__tbin_at(h, k)->bins[c] =
            (cp_bin_t){&cp__slab_none, NULL, NULL, NULL};
  }
  for (uint32_t k = 0; k < cp__ntypes; k++)
    for (uint32_t c = 0; c < CP_NCLASSES; c++)
      cp__types[k]->orphans[c] = NULL;
}

void cp__heap_place(cp_heap_t *h, cp_slab_t *w, uint8_t where) {
  w->next = w->prev = NULL;
  w->note = CP_NOTE_OFF;
  if (!h) {
    set_owner(w, 0);
    w->where = CP_IN_ORPHANS;
    list_push(&w->type->orphans[w->cls], w);
    return;
  }
  cp_tbin_t *tb = cp__tbin_at(h, w->type->id);
  cp_bin_t *b = &tb->bins[w->cls];
  CP_OWN_SET(w->bin, tb);
  bool room = w->free != CP_NONE || w->bump < w->nslots;
  if (where == CP_IN_CUR && room && b->cur == &cp__slab_none) {
    set_owner(w, owner_word(h, w, false));
    b->cur = w;
    w->where = CP_IN_CUR;
  } else if (room) {
    set_owner(w, owner_word(h, w, false));
    partial_add(b, w);
  } else {
    set_owner(w, owner_word(h, w, true));
    w->where = CP_IN_FULL;
    list_push(&b->full, w);
    cp__slab_arm(w);
  }
}

/* ---- the high-water mark and exhaustion ---------------------------------- */

/* The compact arena grew: did it reach the high-water mark?  The switch
 * itself waits for a safepoint. */
void cp__watch_high_water(void) {
  cp_arena_t *a = &cp__compact_arena;
  if (a->used_pages >= a->high_water_pages && !cp__wide && !cp__pending() &&
      cp__build == CP_BUILD_SWITCHABLE) {
    cp__pending_since = cp__allocs_so_far();
    cp__set_pending(1);
  }
}

/* A try allocation found the compact arena exhausted (it returns NULL):
 * the switch becomes pending whatever the mark says, so the caller's next
 * safepoint makes room; nothing is forced here. */
void cp__note_exhausted(void) {
  if (!cp__wide && !cp__pending() && cp__build == CP_BUILD_SWITCHABLE) {
    cp__pending_since = cp__allocs_so_far();
    cp__set_pending(1);
  }
}

_Noreturn void cp__exhausted(cp_arena_t *a, size_t request) {
  size_t reach = a->span;
  if (a->wide)
    cp__fatal("the wide heap is exhausted: %zu bytes reserved "
              "(COMPACTPTR_WIDE_RESERVE)%s; it needed a new run of %zu bytes",
              reach, cp__arena_limit_note(a), request);
  const char *advice = cp__compact_arena_advice();
  if (cp__build == CP_BUILD_COMPACT_ONLY)
    cp__fatal("the compact arena is exhausted: %zu bytes in use of %zu%s "
              "(it needed a new run of %zu bytes); this program was built compact-only, "
              "so it cannot switch to wide mode (rebuild with "
              "-fplugin-arg-compactptr-mode=switchable%s%s)",
              (size_t)a->used_pages << CP_PAGE_SHIFT, reach,
              cp__arena_limit_note(a), request, advice ? " or " : "",
              advice ? advice : "");
  if (cp__pending()) {
    if (__atomic_load_n(&cp__stopping, __ATOMIC_ACQUIRE))
      cp__fatal("the compact arena is exhausted (%zu bytes%s) while a switch "
                "to wide mode waits for the program's threads to reach a "
                "safepoint: this thread (it allocates under a compact body or "
                "between safepoints) or another one has not reached one; "
                "add cp_safepoint() calls to the threads' allocating loops, "
                "or lower COMPACTPTR_HIGH_WATER to leave more headroom",
                reach, cp__arena_limit_note(a));
    uint64_t deferred = __atomic_load_n(&cp__safepoints_deferred, __ATOMIC_RELAXED);
    if (deferred)
      cp__fatal("the compact arena is exhausted (%zu bytes%s) while a switch to "
                "wide mode is pending: the switch became pending %llu "
                "allocations ago, and the %llu safepoints reached since were "
                "deferred because a compact body was active on the stack (a "
                "function that reaches no safepoint is running: a walk whose "
                "callback allocates, or one a longjmp left); declare that "
                "function CP_SAFEPOINT, so it is compiled in the checked form, "
                "or lower COMPACTPTR_HIGH_WATER to leave more headroom",
                reach, cp__arena_limit_note(a),
                (unsigned long long)(cp__allocs_so_far() - cp__pending_since),
                (unsigned long long)deferred);
    cp__fatal("the compact arena is exhausted (%zu bytes%s) while a switch to "
              "wide mode is pending: the switch became pending %llu "
              "allocations ago and no safepoint was reached since; add a "
              "cp_safepoint() call in a loop that allocates (outside compact "
              "bodies), or lower COMPACTPTR_HIGH_WATER to leave more headroom",
              reach, cp__arena_limit_note(a),
              (unsigned long long)(cp__allocs_so_far() - cp__pending_since));
  }
  /* One run larger than the whole arena (a big static array moved into
   * the heap before main): neither a safepoint nor the switch's headroom
   * makes room for it. */
  if (request > reach)
    cp__fatal("the compact arena (%zu bytes%s) is smaller than the one run "
              "of %zu bytes this allocation needs (a large array, or a "
              "global moved into the heap before main)%s%s",
              reach, cp__arena_limit_note(a), request, advice ? "; " : "",
              advice ? advice : "");
  cp__fatal("the compact arena is exhausted (%zu bytes%s; it needed a new run "
            "of %zu bytes, more than is left) before a switch to wide mode "
            "became pending; add a cp_safepoint() call before this "
            "allocation, lower COMPACTPTR_HIGH_WATER%s%s",
            reach, cp__arena_limit_note(a), request, advice ? ", or " : "",
            advice ? advice : "");
}
