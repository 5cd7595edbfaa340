/*
 * slab.c - per-type slabs and blocks on top of the buddy allocator, and the
 * lock-free protocol between a slab's owner thread and the threads that
 * free into it.
 *
 * Design.  Every compact type owns its slabs: runs of pages cut into slots
 * of one size (the type's compact size rounded up to 4 bytes and to the
 * granule, so a 12-byte node takes 12 bytes).  Slot metadata is out of
 * line: each slab has a header (cp_slab_t, from libc) holding a free list
 * threaded through the free slots as 32-bit byte offsets and a bump index
 * below which every slot has been put on the free list at least once (the
 * list is extended a page at a time).  Every page of a run maps to its
 * header through the arena's page map, and every 64 KiB region of a slab
 * through the slab map (slabs are buddy-aligned runs of 64 KiB or more),
 * so address -> slab is one load and slot index is a multiply by a
 * precomputed reciprocal (cp__slot_index), never a divide.  Arrays and large objects get a block: a run holding
 * `count` consecutive elements.  Small arrays go to slabs of their own size
 * class (2^k elements per slot), so an array of three nodes takes four
 * nodes' room, not a page.
 *
 * Ownership (the method of mimalloc, on typed slabs).  Each thread has a
 * heap (heap.c); a slab belongs to one heap, or to none (an orphan, whose
 * thread exited).  Only the owner allocates from a slab, and only the owner
 * touches its free list, `used` and list links, so neither needs a lock.
 * A free by another thread pushes the slot on the slab's remote list
 * (`xfree`, a 32-bit head and two flags in one atomic word, pushed with a
 * compare-and-swap); the owner takes the whole list with one more when its
 * free list runs dry (cp__slab_collect).  Only the owner pops, so the list
 * has no ABA problem.
 *
 * Full slabs.  A slab without free slots is on its owner's full list and is
 * not looked at again until something frees into it.  A free by the owner
 * itself sees the FULL flag in the owner word and moves it back.  For
 * remote frees the owner arms the slab (CP_XF_NOTIFY): the first freer that
 * finds the flag clears it, sets NOTIFYING, pushes the slab on the owner
 * heap's notification stack and clears NOTIFYING; the owner empties that
 * stack in its slow path.  The flag is set at most once per stay on the
 * full list, so a slab is on the stack at most once.  Before a slab's
 * header may be freed or handed to another heap, the owner disarms it and
 * waits until no freer is NOTIFYING (a few instructions' window).  While the
 * process has a single thread, full slabs are not armed; a heap arms them
 * at its first slow path once a second thread exists.
 *
 * Free marks.  A free slot of 8 bytes or more carries a random 4-byte mark
 * in bytes 4..7 (and, if it was never handed out and is 12 bytes or more,
 * another in bytes 8..11).  The allocation that takes a slot off a free
 * list checks it: a slot freed twice is on the list twice and comes off the
 * second time without its mark (the first allocation cleared it), so it is
 * caught before it is handed out again, without cp_free reading the object.
 * Slots of 4 bytes have no room for one: their slabs' owner word sends
 * frees down the slow path (CP_OWNER_UNMARKED), so cp_free's fast path
 * writes the mark without a size test.
 * A slab that becomes empty walks its free list before its run goes back
 * (cp__slab_check_empty).  Under COMPACTPTR_DEBUG=1 the live bitmap catches
 * every bad free at the call instead.
 *
 * Locking.  Two locks, always taken in this order:
 *   1. the registry lock (thread.c): known threads, their states, the
 *      stop-the-world handshake (safepoint.c);
 *   2. the heap lock (heap.c): the buddy allocator and both arenas, page
 *      and slab map writes, the type registry, each type's list of all
 *      slabs and its orphans (an orphan's free list too), blocks, the list
 *      of heaps and their tbin arrays, root arrays and registered roots,
 *      the counters of exited threads.
 * The fast paths take neither.  Nothing waits at a safepoint holding the
 * heap lock.
 *
 * States of a slot: never used (at or past bump), free (on the owner's free
 * list or on the remote list), live (neither).  The live bitmap is exact
 * only under COMPACTPTR_DEBUG=1, where every operation maintains it
 * atomically, and after cp__slab_sync (world stopped: the switch and the
 * verifier).  States of a slab, from its owner's view: the current slab of
 * its bin (allocations come from it), partial (in line to become current,
 * first in, first out; a current slab that ran dry waits there too, so
 * frees into it stay on the fast path), full (still dry when its turn
 * came; armed), or an orphan.  An empty slab other than the current one
 * goes back to the buddy.
 *
 * Fast paths (heap.c, inline, no lock, no atomic read-modify-write):
 * allocation from the current slab's free list; free by the owner onto its
 * free list.  Slow paths: extending the free list from bump, collecting
 * remote frees, emptying the notification stack, switching to a partial
 * slab, adopting an orphan, a new slab from the buddy (heap lock), remote
 * frees (one compare-and-swap), blocks (heap lock).
 */
#include "internal.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

uint32_t cp__mark_free, cp__mark_fresh;

cp_slab_t cp__slab_none = {.free = CP_NONE, .slot = 4, .slot16 = 4u - 16, .magic = 0,
                           .xfree = CP_NONE};

static void all_link(cp_type_t *t, cp_slab_t *s) {
  s->next_all = t->all;
  s->prev_all = NULL;
  if (t->all)
    t->all->prev_all = s;
  t->all = s;
}

static void all_remove(cp_type_t *t, cp_slab_t *s) {
  if (s->prev_all)
    s->prev_all->next_all = s->next_all;
  else
    t->all = s->next_all;
  if (s->next_all)
    s->next_all->prev_all = s->prev_all;
}

/* The slab map: per arena, one entry per 64 KiB region, the slab covering
 * it.  Slabs are buddy-aligned runs of 64 KiB or more, so a region holds at
 * most one; blocks (which may be smaller) are not in it.  cp_free reads it
 * instead of the page map: 16 times fewer lines to keep in cache.  It is
 * indexed by the address's region number modulo its size (a power of two
 * at least the arena's regions), so cp_free looks an address up with no
 * range check: any address finds a slab or NULL, and one outside the slab
 * it finds fails cp_free's slot check, which bounds the offset from the
 * slab's start. */
#define CP_REGION_SHIFT CP_SLAB_MIN_SHIFT
static struct slabmap {
  const cp_arena_t *arena;
  cp_slab_t **map;
  size_t bytes;
  uint64_t mask;
} slabmaps[2];

cp_slab_t **cp__slabmap(const cp_arena_t *a, uint64_t *mask) {
  struct slabmap *m = &slabmaps[a == &cp__wide_arena];
  if (m->map && m->arena == a) {
    *mask = m->mask;
    return m->map;
  }
  *mask = 0;
  if (!a->base)
    return NULL;
  /* Arenas are 2 MiB aligned: regions of the arena are regions of the
   * address space. */
  if ((uintptr_t)a->base & (((uintptr_t)1 << CP_REGION_SHIFT) - 1))
    cp__fatal("internal error: an arena at %p is not aligned to a region",
              (void *)a->base);
  size_t n = 1;
  while (n < ((size_t)a->npages << CP_PAGE_SHIFT >> CP_REGION_SHIFT) + 1)
    n <<= 1;
  m->bytes = (n * sizeof(cp_slab_t *) + CP_PAGE_SIZE - 1) & ~(CP_PAGE_SIZE - 1);
  m->map = cp__os_alloc_zeroed(m->bytes);
  if (!m->map)
    cp__fatal_no_memory("cannot map %zu bytes for the slab map", m->bytes);
  m->arena = a;
  m->mask = n - 1;
  *mask = m->mask;
  return m->map;
}

void cp__slabmap_drop(const cp_arena_t *a) {
  struct slabmap *m = &slabmaps[a == &cp__wide_arena];
  cp__os_free(m->map, m->bytes);
  memset(m, 0, sizeof *m);
}

static void map_pages(cp_arena_t *a, cp_slab_t *s, cp_slab_t *to) {
  for (uint32_t i = 0; i < (1u << s->order); i++)
    a->pagemap[s->page + i] = to;
  if (s->kind != CP_SLAB)
    return;
  uint64_t mask;
  cp_slab_t **m = cp__slabmap(a, &mask);
  uint32_t per = 1u << (CP_REGION_SHIFT - CP_PAGE_SHIFT);
  cp__assert(s->page % per == 0 && (1u << s->order) >= per);
  uintptr_t first = (uintptr_t)s->start >> CP_REGION_SHIFT;
  for (uint32_t r = 0; r < (1u << s->order) / per; r++)
    __atomic_store_n(&m[(first + r) & mask], to, __ATOMIC_RELAXED);
}

static uint32_t run_for(cp_arena_t *a, size_t bytes, bool to_zero,
                        bool try_only) {
  uint32_t k = cp__order_for_bytes(bytes);
  uint32_t p = to_zero ? cp__buddy_alloc_to_zero(a, k) : cp__buddy_alloc(a, k);
  if (p == CP_NONE && !try_only)
    cp__exhausted(a, bytes);
  return p;
}

/* Slab headers start on a cache line: the fast paths read only the first. */
static cp_slab_t *header_new(size_t bytes) {
  bytes = (bytes + 63) & ~(size_t)63;
  cp_slab_t *s = aligned_alloc(64, bytes);
  if (!s)
    cp__fatal_no_memory("out of memory for slab metadata (%zu bytes)", bytes);
  memset(s, 0, bytes);
  return s;
}

/* The slots leave at least one byte of the run free after the last slot,
 * so the address one past the end of the last object or array is inside
 * the slab's own run, never the first byte of the next run (which may hold
 * another object): the switch and the verifier then map it without a
 * guess.  It costs a slot only when slot divides the run. */
/* A header of `header` bytes for a new buddy run of at least `run` bytes,
 * with the fields slabs and blocks share; NULL (try_only) or fatal when the
 * arena has no such run. */
static cp_slab_t *run_new(cp_arena_t *a, cp_type_t *t, size_t header,
                          size_t run, uint32_t slot, uint32_t elem,
                          bool to_zero, bool try_only) {
  cp_slab_t *s = header_new(header);
  uint32_t p = run_for(a, run, to_zero, try_only);
  if (p == CP_NONE) {
    free(s);
    return NULL;
  }
  s->type = t;
  s->start = cp__arena_addr(a, p);
  s->slot = slot;
  s->slot16 = slot - 16;
  s->magic = cp__slot_magic(slot);
  s->elem = elem;
  s->elem_magic = cp__slot_magic(elem);
  s->free = CP_NONE;
  s->xfree = CP_NONE;
  s->page = p;
  s->order = (uint8_t)cp__order_for_bytes(run);
  s->wide = a->wide;
  return s;
}

uint32_t cp__slots_per_slab(uint32_t slot) {
  size_t bytes = (size_t)1 << CP_SLAB_MIN_SHIFT;
  while (bytes < (size_t)slot * CP_SLAB_MIN_SLOTS)
    bytes <<= 1;
  return (uint32_t)((bytes - 1) / slot);
}

cp_slab_t *cp__slab_new(cp_arena_t *a, cp_type_t *t, uint32_t cls,
                        uint32_t elem, uint32_t nslots, bool try_only) {
  uint32_t slot = cp__slot_bytes(elem, cls);
  /* + 1: one past the last slot stays inside the run (see above); for a
   * wide counterpart whose slots fill a run exactly, that takes a run of
   * twice the size, of address space that is never touched. */
  size_t run = (size_t)slot * nslots + 1;
  /* At least 64 KiB, so the slab map's regions hold one slab each (a wide
   * counterpart of a small array class can need less). */
  if (run < ((size_t)1 << CP_SLAB_MIN_SHIFT))
    run = (size_t)1 << CP_SLAB_MIN_SHIFT;
  cp_slab_t *s = run_new(a, t, sizeof *s, run, slot, elem, false, try_only);
  if (!s)
    return NULL;
  s->elems = (uint16_t)(1u << cls);
  s->cls = (uint8_t)cls;
  s->nslots = nslots;
  s->count = 1;
  s->kind = CP_SLAB;
  if (cp__debug)
    cp__slab_live_bits(s); /* every allocation and free keeps it */
  map_pages(a, s, s);
  all_link(t, s);
  return s;
}

cp_slab_t *cp__block_new(cp_arena_t *a, cp_type_t *t, uint32_t elem,
                         uint64_t count, bool to_zero, bool try_only) {
  if (count > (((size_t)a->npages << CP_PAGE_SHIFT) / elem)) {
    if (try_only)
      return NULL;
    /* cp_alloc_array has ruled out overflow of elem * count */
    cp__exhausted(a, (size_t)elem * count + 1);
  }
  /* + 1: the block's one-past-the-end address stays inside its own run,
   * as for slabs, so `end = a + n` is never the first byte of the next run
   * (which may hold a live object the switch would take it for).  A block
   * whose bytes are exactly a power-of-two number of pages takes a run of
   * twice the size: arena reach, not memory, as the upper half is never
   * touched. */
  size_t run = (size_t)elem * count + 1;
  cp_slab_t *s = run_new(a, t, sizeof *s, run, elem, elem, to_zero, try_only);
  if (!s)
    return NULL;
  s->elems = 1;
  s->nslots = 1;
  s->count = count;
  s->bump = 1;
  s->bump_end = elem; /* never read: a block's owner is no heap */
  s->used = 1;
  s->kind = CP_BLOCK;
  s->owner = CP_OWNER_BLOCK;
  map_pages(a, s, s);
  all_link(t, s);
  return s;
}

/* The bitmap is taken only where it is kept: under COMPACTPTR_DEBUG=1, and
 * by the switch and the verifier (cp__slab_sync).  Otherwise a program
 * with many types and few objects paid a kilobyte of zeros per slab (41
 * KiB of its peak for 33 types of one object each). */
uint64_t *cp__slab_live_bits(cp_slab_t *s) {
  if (!s->live) {
    s->live = calloc(((size_t)s->nslots + 63) / 64, sizeof(uint64_t));
    if (!s->live)
      cp__fatal_no_memory("out of memory for the live bitmap of a slab of "
                          "%u slots",
                          s->nslots);
  }
  return s->live;
}

void cp__slab_header_free(cp_slab_t *s) {
  free(s->live);
  free(s);
}

void cp__slab_release(cp_arena_t *a, cp_slab_t *s) {
  all_remove(s->type, s);
  map_pages(a, s, NULL);
  cp__buddy_free(a, s->page, s->order);
  cp__slab_header_free(s);
}

/* ---- the owner's free list ---------------------------------------------- */

static inline uint32_t *link_at(const cp_slab_t *s, uint32_t off) {
  return (uint32_t *)(s->start + off);
}

bool cp__slab_extend(cp_slab_t *s) {
  uint32_t b = s->bump;
  if (b >= s->nslots)
    return false;
  /* Up to the end of the page holding slot b: fresh memory is touched a
   * page at a time, so a slab costs resident memory as it fills. */
  uintptr_t first = (uintptr_t)s->start + (uintptr_t)b * s->slot;
  uintptr_t page_end = (first + CP_PAGE_SIZE) & ~(uintptr_t)(CP_PAGE_SIZE - 1);
  uint64_t e = ((uint64_t)(page_end - (uintptr_t)s->start) + s->slot - 1) / s->slot;
  if (e > s->nslots)
    e = s->nslots;
  /* The header's fields and the marks in locals: a store through the
   * slot's char pointer may alias any of them, so the compiler would
   * reload each one per slot. */
  uint32_t slot = s->slot, head = s->free, free_mark = cp__mark_free,
           fresh_mark = cp__mark_fresh;
  bool mark = cp__slot_marked(slot), fresh = slot >= 12;
  char *start = s->start;
  for (uint32_t off = (uint32_t)((e - 1) * slot), end = b * slot;
       off + slot > end; off -= slot) {
    memcpy(start + off, &head, 4);
    if (mark)
      memcpy(start + off + 4, &free_mark, 4);
    if (fresh)
      memcpy(start + off + 8, &fresh_mark, 4);
    head = off;
  }
  /* bump first: a fork that catches this thread in between leaves slots
   * below bump that are on no list (lost to the child), never slots on the
   * free list at or past bump. */
  __atomic_store_n(&s->bump, (uint32_t)e, __ATOMIC_RELAXED);
  __atomic_store_n(&s->bump_end, (uint32_t)e * slot, __ATOMIC_RELAXED);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  s->free = head;
  return true;
}

uint32_t cp__slab_collect(cp_slab_t *s) {
  uint64_t x = __atomic_load_n(&s->xfree, __ATOMIC_RELAXED);
  do {
    if ((x & CP_XF_HEAD) == CP_NONE)
      return 0;
  } while (!__atomic_compare_exchange_n(&s->xfree, &x,
                                        (x | CP_XF_HEAD) & ~CP_XF_COUNT, true,
                                        __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
  uint32_t head = (uint32_t)(x & CP_XF_HEAD), tail = head, n = 1;
  for (uint32_t next; (next = *link_at(s, tail)) != CP_NONE; tail = next)
    n++;
  *link_at(s, tail) = s->free;
  s->free = head;
  CP_OWN_SET(s->used, CP_OWN_GET(s->used) - n);
  return n;
}

/* ---- the full-slab notification ------------------------------------------ */

bool cp__slab_arm(cp_slab_t *s) {
  cp__assert(s->note == CP_NOTE_OFF);
  uint64_t x = __atomic_load_n(&s->xfree, __ATOMIC_RELAXED);
  do {
    if ((x & CP_XF_HEAD) != CP_NONE)
      return false;
  } while (!__atomic_compare_exchange_n(&s->xfree, &x, x | CP_XF_NOTIFY, true,
                                        __ATOMIC_RELEASE, __ATOMIC_RELAXED));
  s->note = CP_NOTE_ARMED;
  return true;
}

void cp__slab_disarm(cp_slab_t *s) {
  if (s->note != CP_NOTE_ARMED)
    return;
  uint64_t x = __atomic_load_n(&s->xfree, __ATOMIC_RELAXED);
  do {
    if (!(x & CP_XF_NOTIFY)) {
      s->note = CP_NOTE_PENDING; /* a freer took it: s is (or will be) on
                                    the notification stack */
      return;
    }
  } while (!__atomic_compare_exchange_n(&s->xfree, &x, x & ~CP_XF_NOTIFY, true,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED));
  s->note = CP_NOTE_OFF;
}

/* A slab that counts no slot in use is about to go back to the buddy; a
 * bad free may have made it count so early, and an object still live in
 * it would then be overwritten by whatever the run holds next. */
static _Noreturn void not_empty(const cp_slab_t *s, const char *what) {
  cp__fatal("a '%s' slab at %p counts no object in use but %s: an object "
            "was freed twice, a pointer into an object or one the runtime "
            "never handed out was freed, or a freed object was written to "
            "(run with COMPACTPTR_DEBUG=1 to stop at the bad free itself)",
            s->type->desc->name, (void *)s->start, what);
}

void cp__slab_check_empty(const cp_slab_t *s) {
  if (cp__slot_marked(s->slot) && !cp__debug) {
    /* Every slot below bump carries the free mark when none is live: the
     * allocation that hands a slot out clears it, and only a free (or the
     * list's extension) writes it, so a slot that a double free left live
     * has none.  Read in address order, the slots' lines stream in (the
     * free list, in the order of the frees, is a chain of dependent loads:
     * three times the instructions and a miss per step once the slab
     * outgrows the L1). */
    const char *p = s->start;
    uint32_t diff = 0, n = s->bump, m = cp__mark_free;
    for (uint32_t i = 0; i < n; i++, p += s->slot)
      diff |= cp__mark_of(p) ^ m;
    if (diff)
      not_empty(s, "holds a slot without the free mark");
    return;
  }
  /* Slots too small for a mark, and COMPACTPTR_DEBUG=1 (where the live
   * bitmap already stopped every bad free at the call): walk the free list.
   * A double free makes `used` reach zero early (the list then has a
   * cycle), an interior free puts a slot on the list that is no slot. */
  uint32_t n = 0;
  for (uint32_t off = s->free; off != CP_NONE; off = *link_at(s, off)) {
    uint64_t i = cp__slot_index(s, off);
    if (++n > s->bump || i * s->slot != off || i >= s->bump)
      not_empty(s, "its free list is corrupt");
  }
  if (n != s->bump)
    not_empty(s, "fewer slots are on its free list than it has");
}

bool cp__slab_quiet(const cp_slab_t *s) {
  return !(__atomic_load_n(&s->xfree, __ATOMIC_ACQUIRE) & CP_XF_NOTIFYING);
}

void cp__slab_push_remote(cp_slab_t *s, void *p) {
  uint32_t off = (uint32_t)((char *)p - s->start);
  uint64_t x = __atomic_load_n(&s->xfree, __ATOMIC_RELAXED), nx;
  do {
    *(uint32_t *)p = (uint32_t)(x & CP_XF_HEAD);
    nx = ((x & ~CP_XF_HEAD) | off) + CP_XF_ONE;
    if (x & CP_XF_NOTIFY)
      nx = (nx & ~CP_XF_NOTIFY) | CP_XF_NOTIFYING;
  } while (!__atomic_compare_exchange_n(&s->xfree, &x, nx, true,
                                        __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
  if (!(x & CP_XF_NOTIFY))
    return;
  /* This free took the notification: tell the owner.  The owner cannot
   * change or go away meanwhile: it waits for NOTIFYING to clear first. */
  cp_heap_t *h = (cp_heap_t *)(cp__owner(s) & ~CP_OWNER_FLAGS);
  cp_slab_t *top = __atomic_load_n(&h->notes, __ATOMIC_RELAXED);
  do
    s->next_note = top;
  while (!__atomic_compare_exchange_n(&h->notes, &top, s, true,
                                      __ATOMIC_RELEASE, __ATOMIC_RELAXED));
  __atomic_fetch_and(&s->xfree, ~CP_XF_NOTIFYING, __ATOMIC_RELEASE);
}

/* ---- the world stopped --------------------------------------------------- */

void cp__slab_sync(cp_slab_t *s) {
  if (s->kind == CP_BLOCK)
    return;
  uint64_t x = __atomic_load_n(&s->xfree, __ATOMIC_ACQUIRE);
  if ((x & CP_XF_HEAD) != CP_NONE)
    cp__slab_collect(s);
  uint32_t bump = s->bump, words = (s->nslots + 63) / 64;
  uint64_t *live = cp__slab_live_bits(s);
  for (uint32_t w = 0; w < words; w++) {
    uint64_t bits = 0;
    if (w * 64 + 64 <= bump)
      bits = ~(uint64_t)0;
    else if (w * 64 < bump)
      bits = ((uint64_t)1 << (bump - w * 64)) - 1;
    live[w] = bits;
  }
  uint32_t nfree = 0;
  for (uint32_t off = s->free; off != CP_NONE; off = *link_at(s, off)) {
    uint64_t i = cp__slot_index(s, off);
    if (i >= bump || i * s->slot != off || !cp__slot_is_live(s, (uint32_t)i) ||
        ++nfree > bump)
      cp__fatal("the free list of a '%s' slab at %p is corrupt (slot offset "
                "%u): a use after free wrote into a free slot, or a slot was "
                "freed twice", s->type->desc->name, (void *)s->start, off);
    live[i >> 6] &= ~((uint64_t)1 << (i & 63));
  }
  s->used = bump - nfree;
}

void cp__slab_rebuild_free_list(cp_slab_t *s) {
  s->free = CP_NONE;
  s->used = 0;
  s->xfree = CP_NONE;
  s->note = CP_NOTE_OFF;
  bool mark = cp__slot_marked(s->slot);
  /* A word at a time, from the top down so that the list runs in address
   * order: the switch's heaps are mostly live, and a bit at a time this
   * loop cost 8 ms of a 256 MiB switch. */
  for (uint32_t wd = (s->bump + 63) / 64; wd-- > 0;) {
    uint32_t n = s->bump - wd * 64;
    uint64_t valid = n >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1;
    uint64_t live = s->live ? s->live[wd] & valid : 0;
    s->used += (uint32_t)__builtin_popcountll(live);
    for (uint64_t gaps = ~live & valid; gaps;) {
      uint32_t i = wd * 64 + 63 - (uint32_t)__builtin_clzll(gaps);
      gaps &= ~((uint64_t)1 << (i & 63));
      char *p = s->start + (size_t)i * s->slot;
      *(uint32_t *)p = s->free;
      if (mark)
        cp__mark_set(p);
      s->free = (uint32_t)(i * s->slot);
    }
  }
}

/* ---- validation ---------------------------------------------------------- */

bool cp__is_object_start(const cp_slab_t *s, const void *p) {
  uint64_t off = (uint64_t)((const char *)p - s->start);
  if (s->kind == CP_BLOCK)
    return off == 0;
  uint64_t i = cp__slot_index(s, off);
  if (i >= cp__bump(s) || i * s->slot != off)
    return false;
  if (cp__debug)
    return cp__slot_is_live(s, (uint32_t)i);
  if (cp__slot_marked(s->slot))
    return !cp__is_free_mark(cp__mark_of(p));
  return true; /* 4-byte slots: exact only with COMPACTPTR_DEBUG=1 */
}

_Noreturn void cp__bad_pointer(const char *op, const cp_slab_t *s,
                               const void *p) {
  const char *name = s->type->desc->name;
  const char *what = s->kind == CP_SLAB && s->elems == 1 ? "object" : "array";
  uint64_t off = (uint64_t)((const char *)p - s->start);
  if (s->kind == CP_BLOCK)
    cp__fatal("%s of %p: not the start of a '%s' array (it is %llu bytes "
              "into one)", op, p, name, (unsigned long long)off);
  uint64_t i = cp__slot_index(s, off);
  if (i < cp__bump(s) && i * s->slot != off)
    cp__fatal("%s of %p: not the start of a '%s' %s", op, p, name, what);
  bool fresh = i >= cp__bump(s) ||
               (cp__slot_marked(s->slot) && cp__is_free_mark(cp__mark_of(p)) &&
                cp__mark_is_fresh(p, s->slot));
  if (fresh)
    cp__fatal("%s of %p: no '%s' %s was handed out there (never allocated)",
              op, p, name, what);
  if (op[0] == 'f')
    cp__fatal("double free of %p: this '%s' %s is already free", p, name,
              what);
  cp__fatal("%s of %p: this '%s' %s is already free (use after free?)", op, p,
            name, what);
}

/* Checks the free lists (the owner's and the remote one) against bump and
 * `used`, and under COMPACTPTR_DEBUG=1 against the live bitmap.  The slab
 * must not change meanwhile. */
bool cp__slab_is_valid(const cp_slab_t *s) {
  if (s->kind == CP_BLOCK)
    return s->count >= 1 && s->used == 1;
  if (s->slot != cp__slot_bytes(s->elem, s->cls) || s->bump > s->nslots)
    return false;
  size_t words = ((size_t)s->nslots + 63) / 64;
  uint64_t *freed = calloc(words ? words : 1, sizeof *freed);
  if (!freed)
    cp__fatal("out of memory checking a slab");
  uint64_t x = __atomic_load_n(&s->xfree, __ATOMIC_ACQUIRE);
  uint32_t lists[2] = {s->free, (uint32_t)(x & CP_XF_HEAD)};
  uint32_t n[2] = {0, 0};
  bool ok = true;
  for (int l = 0; l < 2 && ok; l++)
    for (uint32_t off = lists[l]; ok && off != CP_NONE; off = *link_at(s, off)) {
      uint64_t i = cp__slot_index(s, off);
      uint64_t bit = (uint64_t)1 << (i & 63);
      ok = i < s->bump && i * s->slot == off && !(freed[i >> 6] & bit);
      if (ok)
        freed[i >> 6] |= bit;
      n[l]++;
    }
  /* `used` counts remote frees until the owner collects them. */
  ok = ok && s->used == s->bump - n[0];
  for (uint32_t i = 0; ok && cp__debug && i < s->nslots; i++)
    ok = cp__slot_is_live(s, i) ==
         (i < s->bump && !((freed[i >> 6] >> (i & 63)) & 1));
  free(freed);
  return ok;
}

void cp__slab_wait_quiet(const cp_slab_t *s) {
  for (unsigned n = 0; !cp__slab_quiet(s); n++)
    if (n > 64)
      sched_yield();
}
