/*
 * rootarray.c - root arrays: heap arrays of compact pointers.
 *
 * The plugin routes malloc, calloc and realloc of n * sizeof(struct T *)
 * here; the switch translates every slot of every live root array
 * (cp__root_arrays_each).  A root array is often handed to code that keeps
 * it as a `void *` (a generic vector's items) and frees it there, so
 * free(3) and realloc(3) must take it whatever the pointer's type.
 * compactptr.h links free and realloc in C code built against it to
 * cp_free_any and cp_realloc_any, and those must tell a root array from
 * libc memory cheaply and without reading memory they do not own.
 *
 * Hence a region of address space of its own, reserved at the first root
 * array: a root array is a block of the region, so "is p a root array" is
 * one range compare, the same test that keeps compact objects out of libc
 * (cp_free_any).  Blocks come in size classes two per power of two (64,
 * 96, 128, 192, ... bytes: at most a third more than asked), each class
 * with a free list, and from a bump pointer behind which the region is
 * committed 2 MiB at a time.  A block starts with a header (the live list,
 * the slot count, and a key made from the block's address, checked on
 * every free); the slots follow.  Freed blocks of 64 KiB or more give
 * their pages back, so a large bucket table freed costs nothing resident.
 * Everything here runs under the heap lock; the region's bounds are set
 * once, before the first block is handed out.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct cp_root_array {
  struct cp_root_array *next, *prev; /* live list; next: free list */
  size_t n;                          /* slots */
  uint64_t key;                      /* ROOT_KEY ^ address while live */
} cp_root_array_t;
_Static_assert(sizeof(cp_root_array_t) % 16 == 0, "keep slots 16-aligned");

#define ROOT_KEY 0xC0A5C0A5435052A1ull
enum {
  MIN_SHIFT = 6,            /* the smallest block: 64 bytes */
  NCLASSES = 2 * (64 - MIN_SHIFT),
  DECOMMIT_BYTES = 64 << 10 /* freed blocks this large give pages back */
};
#define REGION_MAX ((size_t)64 << 30) /* halved until the kernel agrees */
#define COMMIT_STEP ((size_t)2 << 20)

static char *region;                 /* reserved once, never released */
static size_t region_span, region_top, region_committed;
static bool region_limited; /* sized under an address-space limit */
static uintptr_t region_lo, region_size; /* read without the lock */
static cp_root_array_t *free_blocks[NCLASSES];
static cp_root_array_t *arrays;      /* live */
uint64_t cp__root_arrays, cp__root_array_bytes;

static uint64_t key_of(const cp_root_array_t *h) {
  return ROOT_KEY ^ (uint64_t)(uintptr_t)h;
}

/* The class of a block of `bytes` (header included) and its size. */
static unsigned size_class(size_t bytes, size_t *size) {
  if (bytes <= ((size_t)1 << MIN_SHIFT)) {
    *size = (size_t)1 << MIN_SHIFT;
    return 0;
  }
  unsigned k = 63u - (unsigned)__builtin_clzll(bytes - 1); /* 2^k < bytes */
  size_t mid = (size_t)3 << (k - 1);
  if (bytes <= mid) {
    *size = mid;
    return 2 * (k - MIN_SHIFT) + 1;
  }
  *size = (size_t)2 << k;
  return 2 * (k - MIN_SHIFT) + 2;
}

static bool region_reserve(void) {
  /* Under an address-space limit, at most a quarter of what is left, so
   * the compact arena, the wide heap after the switch and the program's
   * own memory still fit beside it (halving from 64 GiB until the kernel
   * refused took two thirds of it). */
  uint64_t limit, left = cp__os_address_space_free(&limit);
  size_t span = REGION_MAX;
  while (limit && span > COMMIT_STEP && span > left / 4)
    span /= 2;
  region_limited = limit != 0;
  for (; span >= COMMIT_STEP; span /= 2) {
    char *p = cp__os_reserve(span);
    if (p) {
      region = p;
      region_span = span;
      __atomic_store_n(&region_size, (uintptr_t)span, __ATOMIC_RELAXED);
      __atomic_store_n(&region_lo, (uintptr_t)p, __ATOMIC_RELAXED);
      return true;
    }
  }
  return false;
}

/* The whole pages inside a block of `size` bytes at h: a large freed
 * block gives them back, and they read as zero when it is taken again. */
static void inner_pages(cp_root_array_t *h, size_t size, char **lo, char **hi) {
  uintptr_t page = (uintptr_t)1 << CP_PAGE_SHIFT;
  *lo = (char *)(((uintptr_t)h + page - 1) & ~(page - 1));
  *hi = (char *)(((uintptr_t)h + size) & ~(page - 1));
}

/* A zeroed block of `size` bytes of class c, or NULL.  Heap lock held. */
static cp_root_array_t *block_take(unsigned c, size_t size, size_t used) {
  cp_root_array_t *h = free_blocks[c];
  if (h) {
    free_blocks[c] = h->next;
    char *start = (char *)h, *end = start + used, *lo = end, *hi = end;
    if (size >= DECOMMIT_BYTES)
      inner_pages(h, size, &lo, &hi);
    /* Cleared as far as it is used, but for the pages given back. */
    memset(start, 0, (size_t)((lo < end ? lo : end) - start));
    if (hi < end)
      memset(hi, 0, (size_t)(end - hi));
    return h;
  }
  if (!region && !region_reserve())
    return NULL;
  if (size > region_span - region_top)
    return NULL;
  size_t end = region_top + size;
  if (end > region_committed) {
    size_t want = (end + COMMIT_STEP - 1) & ~(COMMIT_STEP - 1);
    if (want > region_span)
      want = region_span;
    if (!cp__os_commit(region + region_committed, want - region_committed))
      return NULL;
    region_committed = want;
  }
  h = (cp_root_array_t *)(region + region_top); /* fresh: zero */
  region_top = end;
  return h;
}

static void block_give(cp_root_array_t *h) {
  size_t size;
  unsigned c = size_class(sizeof *h + h->n * sizeof(void *), &size);
  if (size >= DECOMMIT_BYTES) {
    char *lo, *hi;
    inner_pages(h, size, &lo, &hi);
    cp__os_decommit(lo, (size_t)(hi - lo));
  }
  h->next = free_blocks[c];
  free_blocks[c] = h;
}

static void **root_array_new(size_t n, bool try_only) {
  if (n > (SIZE_MAX / 2 - sizeof(cp_root_array_t)) / sizeof(void *)) {
    if (try_only)
      return NULL;
    cp__fatal("root array of %zu pointers: size overflows", n);
  }
  size_t used = sizeof(cp_root_array_t) + n * sizeof(void *), size;
  unsigned c = size_class(used, &size);
  cp__lock();
  cp_root_array_t *h = block_take(c, size, used);
  if (!h) {
    size_t span = region_span;
    cp__unlock();
    if (try_only)
      return NULL;
    if (region_limited && span)
      cp__fatal_no_memory("out of memory for a root array of %zu pointers: "
                          "the region for root arrays, %zu bytes of address "
                          "space (a quarter of what was free under the "
                          "address-space limit when the first one was made), "
                          "is full",
                          n, span);
    cp__fatal_no_memory("out of memory for a root array of %zu pointers (the "
                        "region for root arrays, %zu bytes of address space, "
                        "is full or could not be reserved)",
                        n, span);
  }
  h->n = n;
  h->key = key_of(h);
  h->next = arrays;
  if (arrays)
    arrays->prev = h;
  arrays = h;
  cp__root_arrays++;
  cp__root_array_bytes += n * sizeof(void *);
  cp__unlock();
  return (void **)(h + 1);
}

void **cp_root_array_alloc(size_t n) { return root_array_new(n, false); }
void **cp_try_root_array_alloc(size_t n) { return root_array_new(n, true); }

bool cp__is_root_array_memory(const void *p) {
  return (uintptr_t)p - __atomic_load_n(&region_lo, __ATOMIC_RELAXED) <
         __atomic_load_n(&region_size, __ATOMIC_RELAXED);
}

/* The header of the live root array p, or fatal.  Heap lock held. */
static cp_root_array_t *header_of(void **p) {
  cp_root_array_t *h = (cp_root_array_t *)p - 1;
  if (!cp__is_root_array_memory(p) || (uintptr_t)p - region_lo > region_top ||
      h->key != key_of(h))
    cp__fatal("%p is not a root array from cp_root_array_alloc (freed "
              "twice, or not the start of one)", (void *)p);
  return h;
}

void cp_root_array_free(void **p) {
  if (!p)
    return;
  cp__lock();
  cp_root_array_t *h = header_of(p);
  if (h->prev)
    h->prev->next = h->next;
  else
    arrays = h->next;
  if (h->next)
    h->next->prev = h->prev;
  cp__root_arrays--;
  cp__root_array_bytes -= h->n * sizeof(void *);
  h->key = 0;
  h->prev = NULL;
  block_give(h);
  cp__unlock();
}

void **cp_root_array_realloc(void **p, size_t n) {
  if (!p)
    return cp_root_array_alloc(n);
  if (n == 0) {
    cp_root_array_free(p);
    return NULL;
  }
  cp__lock();
  size_t old = header_of(p)->n;
  cp__unlock();
  if (n == old)
    return p;
  void **q = cp_root_array_alloc(n);
  memcpy(q, p, (old < n ? old : n) * sizeof(void *));
  cp_root_array_free(p);
  return q;
}

void cp__root_arrays_each(cp_root_visit_fn fn, void *ctx) {
  for (cp_root_array_t *h = arrays; h; h = h->next) {
    void **slots = (void **)(h + 1);
    for (size_t i = 0; i < h->n; i++)
      fn(&slots[i], NULL, NULL, ctx);
  }
}

/* What free and realloc link to in code built against compactptr.h. */
void cp_free_any(void *p) {
  /* The arena of the current mode, as cp_free reads it (one line). */
  if (CP_UNLIKELY((uint64_t)((uintptr_t)p -
                             (uintptr_t)CP_OWN_GET(cp__fast.base)) <
                  CP_OWN_GET(cp__fast.span)))
    return cp_free(p);
  if (CP_UNLIKELY(cp__is_root_array_memory(p)))
    return cp_root_array_free(p);
  free(p);
}

void *cp_realloc_any(void *p, size_t bytes) {
  if (CP_UNLIKELY(p && cp__arena_contains(cp__current_arena(), p))) {
    cp_slab_t *s = cp__slab_of(cp__current_arena(), p);
    const char *name = s ? s->type->desc->name : "T";
    cp__fatal("realloc of %p, a '%s' object, through a pointer the plugin "
              "cannot see is one (void *, char *, ...): its size is not in "
              "elements of a known type; call realloc on a 'struct %s *'",
              p, name, name);
  }
  if (CP_UNLIKELY(cp__is_root_array_memory(p))) {
    if (bytes == 0) {
      cp_root_array_free(p);
      return NULL;
    }
    /* Slots are pointers: a size that is not a multiple of one rounds up,
     * and the slots past the old end read as NULL. */
    return cp_root_array_realloc(p, bytes / sizeof(void *) +
                                        (bytes % sizeof(void *) != 0));
  }
  return realloc(p, bytes);
}
