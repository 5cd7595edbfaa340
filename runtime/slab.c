/*
 * slab.c - per-type slabs and blocks on top of the buddy allocator.
 *
 * Design.  Every compact type owns its slabs: runs of pages cut into slots
 * of one size (the type's compact size rounded up to the granule, so a
 * 12-byte node takes 12 bytes).  Slot metadata is out of line: each slab has
 * a header (cp_slab_t, from libc) holding a free list threaded through the
 * free slots as 32-bit byte offsets, a bump index for never-used slots and a
 * live bitmap.  Every page of a run maps to its header through the arena's
 * page map, so address -> slab is one load and slot index is a multiply by
 * a precomputed reciprocal (cp__slot_index), never a divide.  Arrays and
 * large objects get a block: a run holding `count` consecutive elements.
 * Small arrays go to slabs of their own size class (2^k elements per slot),
 * so an array of three nodes takes three nodes' room, not a page.
 *
 * Locking.  One lock (heap.c) protects all of it:
 *   1. cp__lock() - types, slabs, both arenas, root arrays, statistics.
 * While the process has a single thread the lock is skipped
 * (__libc_single_threaded); it is taken by every thread once a second
 * thread exists.
 *
 * States of a slot: never used (index >= bump), live (bit set), free (on the
 * free list, bit clear).  States of a slab: partial (on the type's avail
 * list), full (off it), empty (returned to the buddy unless it is the
 * type's last slab with free space).
 *
 * Fast paths: cp__alloc_in with an avail slab; cp_free of a slab slot.
 * Slow paths: new slab or block (buddy), releasing an empty slab.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static void avail_push(cp_type_t *t, cp_slab_t *s) {
  cp_slab_t **head = &t->avail[s->cls];
  s->next_avail = *head;
  s->prev_avail = NULL;
  if (*head)
    (*head)->prev_avail = s;
  *head = s;
  s->in_avail = 1;
}

static void avail_remove(cp_type_t *t, cp_slab_t *s) {
  if (s->prev_avail)
    s->prev_avail->next_avail = s->next_avail;
  else
    t->avail[s->cls] = s->next_avail;
  if (s->next_avail)
    s->next_avail->prev_avail = s->prev_avail;
  s->next_avail = s->prev_avail = NULL;
  s->in_avail = 0;
}

void cp__slab_link(cp_type_t *t, cp_slab_t *s) {
  s->next_all = t->all;
  s->prev_all = NULL;
  if (t->all)
    t->all->prev_all = s;
  t->all = s;
  if (s->kind == CP_SLAB && s->used < s->nslots)
    avail_push(t, s);
}

static void all_remove(cp_type_t *t, cp_slab_t *s) {
  if (s->prev_all)
    s->prev_all->next_all = s->next_all;
  else
    t->all = s->next_all;
  if (s->next_all)
    s->next_all->prev_all = s->prev_all;
}

static void map_pages(cp_arena_t *a, cp_slab_t *s) {
  for (uint32_t i = 0; i < (1u << s->order); i++)
    a->pagemap[s->page + i] = s;
}

static uint32_t run_for(cp_arena_t *a, size_t bytes, bool try_only) {
  uint32_t k = cp__order_for_bytes(bytes);
  uint32_t p = cp__buddy_alloc(a, k);
  if (p == CP_NONE && !try_only)
    cp__exhausted(a, bytes);
  return p;
}

/* Slab headers start on a cache line: translation reads only the first. */
static cp_slab_t *header_new(size_t bytes) {
  bytes = (bytes + 63) & ~(size_t)63;
  cp_slab_t *s = aligned_alloc(64, bytes);
  if (!s)
    cp__fatal("out of memory for slab metadata (%zu bytes)", bytes);
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
                          bool try_only) {
  cp_slab_t *s = header_new(header);
  uint32_t p = run_for(a, run, try_only);
  if (p == CP_NONE) {
    free(s);
    return NULL;
  }
  s->type = t;
  s->start = cp__arena_addr(a, p);
  s->slot = slot;
  s->magic = cp__slot_magic(slot);
  s->elem = elem;
  s->elem_magic = cp__slot_magic(elem);
  s->free_head = CP_NONE;
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
  size_t words = ((size_t)nslots + 63) / 64;
  cp_slab_t *s = run_new(a, t, sizeof *s + words * sizeof(uint64_t), run,
                         slot, elem, try_only);
  if (!s)
    return NULL;
  s->elems = 1u << cls;
  s->cls = (uint8_t)cls;
  s->nslots = nslots;
  s->count = 1;
  s->kind = CP_SLAB;
  s->live = (uint64_t *)(s + 1);
  map_pages(a, s);
  return s;
}

cp_slab_t *cp__block_new(cp_arena_t *a, cp_type_t *t, uint32_t elem,
                         uint64_t count, bool try_only) {
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
  cp_slab_t *s = run_new(a, t, sizeof *s, run, elem, elem, try_only);
  if (!s)
    return NULL;
  s->elems = 1;
  s->nslots = 1;
  s->count = count;
  s->bump = 1;
  s->used = 1;
  s->kind = CP_BLOCK;
  map_pages(a, s);
  return s;
}

void cp__slab_release(cp_arena_t *a, cp_slab_t *s) {
  cp_type_t *t = s->type;
  if (s->in_avail)
    avail_remove(t, s);
  all_remove(t, s);
  for (uint32_t i = 0; i < (1u << s->order); i++)
    a->pagemap[s->page + i] = NULL;
  cp__buddy_free(a, s->page, s->order);
  free(s);
}

void *cp__alloc_in(cp_arena_t *a, cp_type_t *t, uint32_t cls, bool try_only) {
  void *p = cp__slab_take(t, cls);
  if (CP_LIKELY(p != NULL))
    return p;
  uint32_t slot = cp__slot_bytes(t->slot, cls);
  if (cls == 0 && (size_t)slot > CP_LARGE_OBJECT)
    return cp__alloc_block_in(a, t, 1, try_only);
  cp_slab_t *s =
      cp__slab_new(a, t, cls, t->slot, cp__slots_per_slab(slot), try_only);
  if (!s)
    return NULL;
  cp__slab_link(t, s);
  if (!a->wide)
    cp__watch_high_water();
  return cp__slab_take(t, cls);
}

void *cp__alloc_block_in(cp_arena_t *a, cp_type_t *t, uint64_t n,
                         bool try_only) {
  cp_slab_t *s = cp__block_new(a, t, t->slot, n, try_only);
  if (!s)
    return NULL;
  cp__slab_link(t, s);
  if (!a->wide)
    cp__watch_high_water();
  CP_STAT_ALLOC(t, n);
  /* Fresh runs from the buddy are zero only the first time. */
  memset(s->start, 0, (size_t)s->slot * n);
  return s->start;
}

void cp__slab_became_full(cp_type_t *t, cp_slab_t *s) { avail_remove(t, s); }

void cp__slab_after_free(cp_arena_t *a, cp_slab_t *s) {
  cp_type_t *t = s->type;
  if (s->in_avail)
    avail_remove(t, s);
  avail_push(t, s); /* to the front: its free list's head is hot */
  /* Keep one partially used slab per class to absorb alloc/free churn. */
  if (s->used == 0 && (s->next_avail || s->prev_avail))
    cp__slab_release(a, s);
}

/* The rare branch of cp__slab_put: blocks, and every invalid free. */
_Noreturn void cp__bad_free(const cp_slab_t *s, const void *p) {
  cp__bad_pointer("free", s, p);
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
  if (i * s->slot != off)
    cp__fatal("%s of %p: not the start of a '%s' %s", op, p, name, what);
  if (i >= s->bump)
    cp__fatal("%s of %p: no '%s' %s was handed out there (never allocated)",
              op, p, name, what);
  if (op[0] == 'f')
    cp__fatal("double free of %p: this '%s' %s is already free", p, name,
              what);
  cp__fatal("%s of %p: this '%s' %s is already free (use after free?)", op, p,
            name, what);
}

/* Frees a block (p is known to be its start). */
void cp__block_free(cp_arena_t *a, cp_slab_t *s) {
  CP_STAT_FREE(s->type, s->count);
  cp__slab_release(a, s);
}

void cp__slab_rebuild_free_list(cp_slab_t *s) {
  s->free_head = CP_NONE;
  s->used = 0;
  for (uint32_t i = s->bump; i-- > 0;) {
    if (cp__slot_is_live(s, i)) {
      s->used++;
    } else {
      *(uint32_t *)(s->start + (size_t)i * s->slot) = s->free_head;
      s->free_head = i;
    }
  }
}

bool cp__slab_is_valid(const cp_slab_t *s) {
  if (s->kind == CP_BLOCK)
    return s->count >= 1 && s->used == 1;
  if (s->slot != cp__slot_bytes(s->elem, s->cls) || s->bump > s->nslots)
    return false;
  uint32_t live = 0, nfree = 0;
  for (uint32_t i = 0; i < s->nslots; i++) {
    if (cp__slot_is_live(s, i)) {
      if (i >= s->bump)
        return false;
      live++;
    }
  }
  for (uint32_t i = s->free_head; i != CP_NONE;
       i = *(uint32_t *)(s->start + (size_t)i * s->slot)) {
    if (i >= s->bump || cp__slot_is_live(s, i))
      return false;
    if (++nfree > s->nslots)
      return false;
  }
  return live == s->used && live + nfree == s->bump;
}
