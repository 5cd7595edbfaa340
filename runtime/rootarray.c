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
 * (cp_free_any).  Blocks come in size classes -- every multiple of 16
 * bytes up to 256, then four per power of two (at most a quarter more
 * than asked) -- each class with a free list, and from a bump pointer
 * behind which the region is committed 2 MiB at a time.  A root array's
 * slots follow a 16-byte header: the slot count, and a key made from the
 * header's address, its class and its kind, checked on every free.  So an
 * array of eight pointers takes 80 bytes, as libc's malloc(64) does (a
 * 48-byte header with a live list made it 128, and a program of such
 * arrays, Olden's em3d, a quarter larger than its native build).  The
 * switch finds the live blocks by a bitmap of the region, one bit per 16
 * bytes, set at each live header.  Freed blocks of 64 KiB or more give
 * their pages back, so a large bucket table freed costs nothing resident.
 * Everything here runs under the heap lock; the region's bounds are set
 * once, before the first block is handed out.
 *
 * Pinned objects share the region.  In switchable mode the plugin keeps a
 * struct that holds a synchronization object (a mutex, a condition
 * variable) beside compact pointers -- a work queue, a pool -- in its
 * native layout: the switch must not move it while a thread waits on its
 * mutex in the kernel, at its address.  Such an object is a block whose
 * header says so, with its type and alignment in the 16 bytes before the
 * header: the switch translates the compact pointers of each value in
 * place, as a root, and never moves it.  Being a block of the region, it
 * is told from libc memory by the same range compare, so free(3) through
 * a `void *` finds it.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The 16 bytes before a block's slots (or values). */
typedef struct cp_root_array {
  size_t n; /* slots: pointer-sized words */
  /* Last, where libc reads a chunk's size: realloc(3) of a block from a
   * file built without compactptr.h stops with "invalid old size".  0
   * while the block is free. */
  uint64_t key;
} cp_root_array_t;
/* Before a pinned block's header: what it holds and where it begins. */
typedef struct cp_pinned_head {
  cp_type_t *type;
  size_t lead; /* bytes from the block's start to this: values aligned
                  above 16 bytes sit that far in */
} cp_pinned_head_t;
_Static_assert(sizeof(cp_root_array_t) == 16 && sizeof(cp_pinned_head_t) == 16,
               "keep slots 16-aligned");

/* key = ROOT_KEY ^ the header's address ^ its class (bits 48..55) ^ its
 * kind (bit 47, pinned): addresses stay below 2^47, so the key gives both
 * back, and a word that is no key (a pointer, a count, a byte of data)
 * fails the check. */
#define ROOT_KEY 0xC0A5C0A5435052A1ull
#define KEY_PINNED ((uint64_t)1 << 47)
#define KEY_ADDRESS (KEY_PINNED - 1)
enum {
  SMALL_MAX = 256, /* classes every 16 bytes up to here */
  NSMALL = SMALL_MAX / 16,
  NCLASSES = NSMALL + 4 * (64 - 8),
  DECOMMIT_BYTES = 64 << 10 /* freed blocks this large give pages back */
};
_Static_assert(NCLASSES <= 256, "a class fits the key's byte");
#define REGION_MAX ((size_t)64 << 30) /* halved until the kernel agrees */
#define COMMIT_STEP ((size_t)2 << 20)
#define GRANULES_PER_BYTE                                                      \
  ((size_t)16 * 8) /* region bytes a bitmap byte covers */

static char *region;                 /* reserved once, never released */
static size_t region_span, region_top, region_committed;
static uint64_t *live_bits; /* bit i: a live header at region + 16 i */
static bool region_limited; /* sized under an address-space limit */
static uintptr_t region_lo, region_size; /* read without the lock */
static void *free_blocks[NCLASSES]; /* each free block's first word: the next */
uint64_t cp__root_arrays, cp__root_array_bytes;
uint64_t cp__pinned_blocks, cp__pinned_bytes;

static uint64_t key_of(const cp_root_array_t *h, unsigned cls, bool pinned) {
  return ROOT_KEY ^ (uint64_t)(uintptr_t)h ^ ((uint64_t)cls << 48) ^
         (pinned ? KEY_PINNED : 0);
}
/* The class a live header's key names; -1 if h holds no key. */
static int class_of(const cp_root_array_t *h) {
  uint64_t x = h->key ^ ROOT_KEY ^ (uint64_t)(uintptr_t)h;
  if ((x & KEY_ADDRESS) != 0 || (x >> 48) >= NCLASSES)
    return -1;
  return (int)(x >> 48);
}
static bool is_pinned(const cp_root_array_t *h) {
  return ((h->key ^ ROOT_KEY) & KEY_PINNED) != 0;
}
static cp_pinned_head_t *pinned_head(const cp_root_array_t *h) {
  return (cp_pinned_head_t *)h - 1;
}
static const cp_type_t *type_of_block(const cp_root_array_t *h) {
  return is_pinned(h) ? pinned_head(h)->type : NULL;
}

/* The class of a block of `bytes` (header included), and a class's size. */
static unsigned size_class(size_t bytes) {
  if (bytes <= SMALL_MAX)
    return bytes ? (unsigned)((bytes - 1) / 16) : 0;
  unsigned k = 63u - (unsigned)__builtin_clzll(bytes - 1); /* 2^k < bytes */
  size_t q = (bytes - ((size_t)1 << k) + ((size_t)1 << (k - 2)) - 1) >>
             (k - 2); /* quarters of 2^k past it: 1..4 */
  return NSMALL + 4 * (k - 8) + (unsigned)(q - 1);
}
static size_t class_size(unsigned c) {
  if (c < NSMALL)
    return (size_t)(c + 1) * 16;
  unsigned k = 8 + (c - NSMALL) / 4, q = (c - NSMALL) % 4 + 1;
  return ((size_t)1 << k) + q * ((size_t)1 << (k - 2));
}

static void live_set(const cp_root_array_t *h, bool on) {
  size_t i = (size_t)((const char *)h - region) / 16;
  uint64_t bit = (uint64_t)1 << (i & 63);
  if (on)
    live_bits[i / 64] |= bit;
  else
    live_bits[i / 64] &= ~bit;
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
    if (!p)
      continue;
    /* The bitmap beside it, committed as the region is. */
    void *bits = cp__os_reserve(span / GRANULES_PER_BYTE);
    if (!bits) {
      cp__os_release(p, span);
      continue;
    }
    region = p;
    region_span = span;
    live_bits = bits;
    __atomic_store_n(&region_size, (uintptr_t)span, __ATOMIC_RELAXED);
    __atomic_store_n(&region_lo, (uintptr_t)p, __ATOMIC_RELAXED);
    return true;
  }
  return false;
}

/* Makes the region writable up to `end` bytes, and its bitmap. */
static bool region_commit(size_t end) {
  if (end <= region_committed)
    return true;
  size_t want = (end + COMMIT_STEP - 1) & ~(COMMIT_STEP - 1);
  if (want > region_span)
    want = region_span;
  size_t page = (size_t)1 << CP_PAGE_SHIFT;
  size_t from = region_committed / GRANULES_PER_BYTE & ~(page - 1),
         to = (want / GRANULES_PER_BYTE + page - 1) & ~(page - 1);
  if (!cp__os_commit(region + region_committed, want - region_committed) ||
      !cp__os_commit((char *)live_bits + from, to - from))
    return false;
  region_committed = want;
  return true;
}

/* The whole pages inside a block of `size` bytes at b: a large freed
 * block gives them back, and they read as zero when it is taken again. */
static void inner_pages(char *b, size_t size, char **lo, char **hi) {
  uintptr_t page = (uintptr_t)1 << CP_PAGE_SHIFT;
  *lo = (char *)(((uintptr_t)b + page - 1) & ~(page - 1));
  *hi = (char *)(((uintptr_t)b + size) & ~(page - 1));
}

/* A zeroed block of class c, as far as `used` bytes, or NULL.  Heap lock
 * held. */
static char *block_take(unsigned c, size_t used) {
  size_t size = class_size(c);
  char *b = free_blocks[c];
  if (b) {
    memcpy(&free_blocks[c], b, sizeof(void *));
    char *end = b + used, *lo = end, *hi = end;
    /* (The pages given back, unless the kernel kept them: mlock.) */
    if (size >= DECOMMIT_BYTES && !b[sizeof(void *)])
      inner_pages(b, size, &lo, &hi);
    /* Cleared as far as it is used, but for the pages given back. */
    memset(b, 0, (size_t)((lo < end ? lo : end) - b));
    if (hi < end)
      memset(hi, 0, (size_t)(end - hi));
    return b;
  }
  if (!region && !region_reserve())
    return NULL;
  if (size > region_span - region_top || !region_commit(region_top + size))
    return NULL;
  b = region + region_top; /* fresh: zero */
  region_top += size;
  return b;
}

/* The bytes a block of n slots takes, header included: a pinned block's
 * values aligned above 16 bytes get room to be moved up to their
 * alignment. */
static size_t block_bytes(size_t n, const cp_type_t *type) {
  size_t bytes = sizeof(cp_root_array_t) + n * sizeof(void *);
  if (!type)
    return bytes;
  size_t align = type->desc->wide_align;
  return bytes + sizeof(cp_pinned_head_t) + (align > 16 ? align - 16 : 0);
}

/* A live block of n slots (a root array, or pinned values of type), or
 * NULL (try_only), or fatal. */
static void **block_new(size_t n, cp_type_t *type, bool try_only) {
  if (n > (SIZE_MAX / 2 - 256) / sizeof(void *)) {
    if (try_only)
      return NULL;
    cp__fatal("root array of %zu pointers: size overflows", n);
  }
  size_t used = block_bytes(n, type);
  unsigned c = size_class(used);
  cp__lock();
  char *b = block_take(c, used);
  if (!b) {
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
  cp_root_array_t *h = (cp_root_array_t *)b;
  if (type) {
    size_t a = type->desc->wide_align > 16 ? type->desc->wide_align : 16;
    char *values = b + sizeof(cp_pinned_head_t) + sizeof(cp_root_array_t);
    size_t lead = (a - ((uintptr_t)values & (a - 1))) & (a - 1);
    h = (cp_root_array_t *)(values + lead) - 1;
    pinned_head(h)->type = type;
    pinned_head(h)->lead = lead;
    cp__pinned_blocks++;
    cp__pinned_bytes += n * sizeof(void *);
  } else {
    cp__root_arrays++;
    cp__root_array_bytes += n * sizeof(void *);
  }
  h->n = n;
  h->key = key_of(h, c, type != NULL);
  live_set(h, true);
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
  if (!cp__is_root_array_memory(p) || (uintptr_t)p - region_lo < sizeof *h ||
      (uintptr_t)p - region_lo > region_top || ((uintptr_t)p & 15) != 0 ||
      class_of(h) < 0)
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
  unsigned c = (unsigned)class_of(h);
  size_t size = class_size(c);
  char *b = (char *)h;
  if (is_pinned(h)) {
    cp__pinned_blocks--;
    cp__pinned_bytes -= h->n * sizeof(void *);
    b = (char *)pinned_head(h) - pinned_head(h)->lead;
  } else {
    cp__root_arrays--;
    cp__root_array_bytes -= h->n * sizeof(void *);
  }
  live_set(h, false);
  h->key = 0;
  /* A free block: its first word links the class's list, its next byte
   * says whether its inner pages still hold data (the kernel refuses to
   * drop locked pages, under mlockall: they keep their contents, and a
   * block taken again is cleared whole). */
  bool kept = size >= DECOMMIT_BYTES;
  if (kept) {
    char *lo, *hi;
    inner_pages(b, size, &lo, &hi);
    kept = !cp__os_decommit(lo, (size_t)(hi - lo));
  }
  memcpy(b, &free_blocks[c], sizeof(void *));
  b[sizeof(void *)] = kept;
  free_blocks[c] = b;
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
  const cp_type_t *t = type_of_block(h);
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
  const cp_type_t *held = type_of_block(h);
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

/* Every live block, in address order, from the bitmap (the world is
 * stopped, or the heap lock held). */
void cp__root_arrays_each(cp_root_visit_fn fn, void *ctx) {
  size_t words = (region_top / 16 + 63) / 64;
  for (size_t w = 0; w < words; w++)
    for (uint64_t bits = live_bits[w]; bits; bits &= bits - 1) {
      cp_root_array_t *h =
          (cp_root_array_t *)(region +
                              (w * 64 + (size_t)__builtin_ctzll(bits)) * 16);
      void **slots = (void **)(h + 1);
      if (is_pinned(h)) {
        cp_type_t *t = pinned_head(h)->type;
        size_t sz = t->desc->wide_size;
        for (size_t i = 0; i < h->n * sizeof(void *) / sz; i++)
          cp__root_visit_value((char *)slots + i * sz, t, t->desc->name, fn,
                               ctx);
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
    const cp_type_t *t = type_of_block(header_of(p));
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
