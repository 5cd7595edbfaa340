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
 *
 * Pinned objects share the region.  In switchable mode the plugin keeps a
 * struct that holds a synchronization object (a mutex, a condition
 * variable) beside compact pointers -- a work queue, a pool -- in its
 * native layout: the switch must not move it while a thread waits on its
 * mutex in the kernel, at its address.  Such an object is a block whose
 * header names its type: the switch translates the compact pointers of
 * each value in place, as a root, and never moves it.  Being a block of
 * the region, it is told from libc memory by the same range compare, so
 * free(3) through a `void *` finds it.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cp_root_array {
  struct cp_root_array *next, *prev; /* live list; next: free list */
  cp_type_t *type;                   /* pinned: values of it fill the
                                        slots; NULL: compact pointers */
  size_t lead; /* bytes from the block's start to this header: values
                  aligned above 16 bytes sit that far in */
  /* Last, where libc reads a chunk's size: realloc(3) of a block from a
   * file built without compactptr.h stops with "invalid old size". */
  size_t n;                          /* slots: pointer-sized words */
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
uint64_t cp__pinned_blocks, cp__pinned_bytes;

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

/* The bytes a block of n slots takes, header included: values aligned
 * above 16 bytes get room to be moved up to their alignment. */
static size_t block_bytes(size_t n, const cp_type_t *type) {
  size_t align = type ? type->desc->wide_align : 16;
  return sizeof(cp_root_array_t) + n * sizeof(void *) +
         (align > 16 ? align - 16 : 0);
}

/* Gives back the block whose header is h (list and key cleared). */
static void block_give(cp_root_array_t *h, size_t used) {
  size_t size;
  unsigned c = size_class(used, &size);
  h = (cp_root_array_t *)((char *)h - h->lead);
  if (size >= DECOMMIT_BYTES) {
    char *lo, *hi;
    inner_pages(h, size, &lo, &hi);
    cp__os_decommit(lo, (size_t)(hi - lo));
  }
  h->next = free_blocks[c];
  free_blocks[c] = h;
}

/* A live block of n slots (a root array, or pinned values of type), or
 * NULL (try_only), or fatal. */
static void **block_new(size_t n, cp_type_t *type, bool try_only) {
  if (n > (SIZE_MAX / 2 - sizeof(cp_root_array_t)) / sizeof(void *)) {
    if (try_only)
      return NULL;
    cp__fatal("root array of %zu pointers: size overflows", n);
  }
  size_t used = block_bytes(n, type), size;
  unsigned c = size_class(used, &size);
  cp__lock();
  cp_root_array_t *h = block_take(c, size, used);
  if (h && type && type->desc->wide_align > 16) {
    size_t a = type->desc->wide_align;
    size_t lead = (a - ((uintptr_t)(h + 1) & (a - 1))) & (a - 1);
    h = (cp_root_array_t *)((char *)h + lead);
    h->lead = lead;
  }
  if (!h) {
    size_t span = region_span;
    cp__unlock();
    if (try_only)
      return NULL;
    char what[160];
    if (type)
      snprintf(what, sizeof what, "%zu bytes of pinned '%s' objects",
               n * sizeof(void *), type->desc->name);
    else
      snprintf(what, sizeof what, "a root array of %zu pointers", n);
    if (region_limited && span)
      cp__fatal_no_memory("out of memory for %s: the region for root arrays "
                          "and pinned objects, %zu bytes of address space (a "
                          "quarter of what was free under the address-space "
                          "limit when the first one was made), is full",
                          what, span);
    cp__fatal_no_memory("out of memory for %s (the region for root arrays "
                        "and pinned objects, %zu bytes of address space, is "
                        "full or could not be reserved)",
                        what, span);
  }
  h->n = n;
  h->key = key_of(h);
  h->type = type;
  h->next = arrays;
  if (arrays)
    arrays->prev = h;
  arrays = h;
  if (type) {
    cp__pinned_blocks++;
    cp__pinned_bytes += n * sizeof(void *);
  } else {
    cp__root_arrays++;
    cp__root_array_bytes += n * sizeof(void *);
  }
  cp__unlock();
  return (void **)(h + 1);
}

void **cp_root_array_alloc(size_t n) { return block_new(n, NULL, false); }
void **cp_try_root_array_alloc(size_t n) { return block_new(n, NULL, true); }

bool cp__is_root_array_memory(const void *p) {
  return (uintptr_t)p - __atomic_load_n(&region_lo, __ATOMIC_RELAXED) <
         __atomic_load_n(&region_size, __ATOMIC_RELAXED);
}

/* The header of the live root array p, or fatal.  Heap lock held. */
static cp_root_array_t *header_of(void **p) {
  cp_root_array_t *h = (cp_root_array_t *)p - 1;
  if (!cp__is_root_array_memory(p) || (uintptr_t)p - region_lo > region_top ||
      h->key != key_of(h))
    cp__fatal("%p is not a root array or a pinned object of the runtime "
              "(freed twice, or not the start of one)",
              (void *)p);
  return h;
}

/* p is a block of libc's: an array the program allocated with its own
 * wrapper of malloc (xmalloc), which the plugin took for a root array at
 * the free or realloc.  Natively that is a plain free; stopping the
 * program there broke compact-only and wide builds that never switch. */
static bool libc_block(const void *p) {
  return !cp__is_root_array_memory(p) &&
         !cp__arena_contains(cp__current_arena(), p);
}

void cp_root_array_free(void **p) {
  if (!p)
    return;
  if (libc_block(p))
    return free(p);
  cp__lock();
  cp_root_array_t *h = header_of(p);
  if (h->prev)
    h->prev->next = h->next;
  else
    arrays = h->next;
  if (h->next)
    h->next->prev = h->prev;
  if (h->type) {
    cp__pinned_blocks--;
    cp__pinned_bytes -= h->n * sizeof(void *);
  } else {
    cp__root_arrays--;
    cp__root_array_bytes -= h->n * sizeof(void *);
  }
  size_t used = block_bytes(h->n, h->type);
  h->key = 0;
  h->type = NULL;
  h->prev = NULL;
  block_give(h, used);
  cp__unlock();
}

void **cp_root_array_realloc(void **p, size_t n) {
  if (!p)
    return cp_root_array_alloc(n);
  if (libc_block(p)) {
    if (n > SIZE_MAX / sizeof(void *))
      cp__fatal("realloc of %p to %zu pointers: size overflows", (void *)p, n);
    void **q = realloc(p, n * sizeof(void *));
    if (!q && n)
      cp__fatal_no_memory("out of memory for an array of %zu pointers", n);
    return q;
  }
  if (n == 0) {
    cp_root_array_free(p);
    return NULL;
  }
  cp__lock();
  cp_root_array_t *h = header_of(p);
  size_t old = h->n;
  cp_type_t *t = h->type;
  cp__unlock();
  if (t)
    cp__fatal("%p holds pinned '%s' objects, not compact pointers: resize "
              "it as a 'struct %s *'",
              (void *)p, t->desc->name, t->desc->name);
  if (n == old)
    return p;
  void **q = cp_root_array_alloc(n);
  memcpy(q, p, (old < n ? old : n) * sizeof(void *));
  cp_root_array_free(p);
  return q;
}

/* The slots of pinned values of t for n of them; 0 if too many. */
static size_t pinned_slots(const cp_type_t *t, size_t n) {
  size_t w = t->desc->wide_size;
  if (n > SIZE_MAX / 2 / w)
    return 0;
  return (n * w + sizeof(void *) - 1) / sizeof(void *);
}

void *cp_pinned_alloc(cp_type_desc_t *type, size_t n) {
  cp_type_t *t = cp__type_resolve(type);
  size_t slots = pinned_slots(t, n);
  if (n && !slots)
    cp__fatal("%zu pinned '%s' objects: size overflows", n, type->name);
  return block_new(slots, t, false);
}

void *cp_pinned_realloc(cp_type_desc_t *type, void *p, size_t n) {
  if (!p)
    return cp_pinned_alloc(type, n);
  if (n == 0) {
    cp_root_array_free(p);
    return NULL;
  }
  cp_type_t *t = cp__type_resolve(type);
  cp__lock();
  cp_root_array_t *h = header_of(p);
  size_t old = h->n;
  const cp_type_t *held = h->type;
  cp__unlock();
  if (held != t)
    cp__fatal("realloc of %p as pinned '%s' objects: it holds %s", p,
              type->name, held ? held->desc->name : "compact pointers");
  size_t slots = pinned_slots(t, n);
  if (!slots)
    cp__fatal("%zu pinned '%s' objects: size overflows", n, type->name);
  if (slots == old)
    return p;
  void **q = block_new(slots, t, false);
  memcpy(q, p, (old < slots ? old : slots) * sizeof(void *));
  cp_root_array_free(p);
  return q;
}

void cp_pinned_free(void *p) { cp_root_array_free(p); }

void cp__root_arrays_each(cp_root_visit_fn fn, void *ctx) {
  for (cp_root_array_t *h = arrays; h; h = h->next) {
    void **slots = (void **)(h + 1);
    if (h->type) {
      size_t w = h->type->desc->wide_size;
      for (size_t i = 0; i < h->n * sizeof(void *) / w; i++)
        cp__root_visit_value((char *)slots + i * w, h->type,
                             h->type->desc->name, fn, ctx);
      continue;
    }
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
    cp__lock();
    cp_type_t *t = header_of(p)->type;
    cp__unlock();
    if (t) /* pinned values: whole ones, the last one rounded up */
      return cp_pinned_realloc(t->desc, p,
                               bytes / t->desc->wide_size +
                                   (bytes % t->desc->wide_size != 0));
    /* Slots are pointers: a size that is not a multiple of one rounds up,
     * and the slots past the old end read as NULL. */
    return cp_root_array_realloc(p, bytes / sizeof(void *) +
                                        (bytes % sizeof(void *) != 0));
  }
  return realloc(p, bytes);
}
