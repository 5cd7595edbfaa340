/*
 * buddy.c - power-of-two runs of pages with splitting and coalescing
 * (Knuth, TAOCP vol. 1, 2.5, "the buddy system").
 *
 * A free run of 2^k pages starting at page p (p a multiple of 2^k) is on
 * free list k; its head page's order byte is k | CP_BUDDY_FREE.  Allocated
 * runs keep their order in the head byte (without the flag), which is how a
 * free finds its buddy: p ^ 2^k is free and mergeable exactly when its head
 * byte reads k | CP_BUDDY_FREE.  Links are page indices in side arrays, so
 * free runs are never touched (and never need to be committed).
 *
 * Runs are taken from the head of each list and splits keep the lower half.
 * The pages from the frontier up have never been carved into runs: when no
 * free run is large enough, the run asked for is carved at the frontier
 * (after runs that align it), so a young arena fills from its bottom and
 * stays compactly committed, and only the records near the frontier are
 * touched.  Carving the whole arena at start-up into its largest aligned
 * runs wrote one record per order, megabytes apart in the per-page array,
 * and splitting the first one for a slab as many again: 60 KiB of
 * metadata resident for a program of 33 slabs.
 *
 * Memory goes back to the kernel by whole 2 MiB commit chunks, and not at
 * once: a program that callocs and frees a large array in a loop would
 * fault every page in again each round (2000 rounds of 1 MiB took 5.2 s
 * where glibc, which keeps freed heap memory, takes 0.03 s).  As in
 * mimalloc's delayed purge, chunks of free runs are given back when more
 * than DIRTY_MAX bytes of them wait, or when the oldest has waited
 * DIRTY_DELAY seconds, checked at the next allocation or free of a run.
 * Each chunk remembers whether it reads as zero (CP_CHUNK_ZERO: fresh or
 * given back, nothing handed out in it since), so cp__buddy_zero clears
 * only what was used: a reused chunk with memset, a given-back one not at
 * all.
 */
#include "internal.h"

#define CHUNK_ORDER (CP_COMMIT_SHIFT - CP_PAGE_SHIFT)
#define DIRTY_MAX ((uint64_t)64 << 20) /* bytes of free chunks kept */
#define DIRTY_DELAY 0.1                /* seconds a free chunk is kept */
#define PURGE_BACKOFF 1.0              /* seconds after a refused give-back */

static uint32_t chunk_of_page(uint32_t page) { return page >> CHUNK_ORDER; }
static uint32_t last_chunk(uint32_t p, uint32_t k) {
  return (uint32_t)(((uint64_t)p + (1u << k) - 1) >> CHUNK_ORDER);
}

static void push(cp_arena_t *a, uint32_t p, uint32_t k) {
  uint32_t h = a->free_head[k];
  a->runs[p].next = h;
  a->runs[p].prev = CP_NONE;
  if (h != CP_NONE)
    a->runs[h].prev = p;
  a->free_head[k] = p;
  a->runs[p].order = (uint8_t)(k | CP_BUDDY_FREE);
}

static void unlink_run(cp_arena_t *a, uint32_t p, uint32_t k) {
  uint32_t n = a->runs[p].next, pr = a->runs[p].prev;
  if (pr != CP_NONE)
    a->runs[pr].next = n;
  else
    a->free_head[k] = n;
  if (n != CP_NONE)
    a->runs[n].prev = pr;
}

uint32_t cp__order_for_bytes(size_t bytes) {
  size_t pages = (bytes + CP_PAGE_SIZE - 1) >> CP_PAGE_SHIFT;
  uint32_t k = 0;
  while (((size_t)1 << k) < pages)
    k++;
  return k;
}

/* An arena's commits up to this many bytes are on 4 KiB pages. */
#define SMALL_HEAP ((uint64_t)8 << 20)

/* Huge-page advice for every committed chunk of a, when its heap has
 * outgrown SMALL_HEAP. */
static void advise_committed_huge(cp_arena_t *a) {
  uintptr_t top = a->start + a->span;
  for (uint32_t c = 0;
       ((uintptr_t)c << CP_COMMIT_SHIFT) < top - (uintptr_t)a->base; c++) {
    if (!a->committed[c])
      continue;
    uintptr_t start = (uintptr_t)a->base + ((uintptr_t)c << CP_COMMIT_SHIFT);
    uintptr_t end = start + ((uintptr_t)1 << CP_COMMIT_SHIFT);
    if (start < a->start)
      start = a->start;
    if (end > top)
      end = top;
    cp__os_advise_pages((void *)start, end - start, true);
  }
}

static void commit_run(cp_arena_t *a, uint32_t p, uint32_t k) {
  for (uint32_t c = chunk_of_page(p); c <= last_chunk(p, k); c++) {
    if (a->committed[c])
      continue;
    /* A chunk is clipped to the managed pages: below first_page stays
     * inaccessible (a NULL handle's page), and a zero-based arena has no
     * reservation below it. */
    uintptr_t start = (uintptr_t)a->base + ((uintptr_t)c << CP_COMMIT_SHIFT);
    uintptr_t end = start + ((uintptr_t)1 << CP_COMMIT_SHIFT);
    uintptr_t top = a->start + a->span;
    if (start < a->start)
      start = a->start;
    if (end > top)
      end = top;
    size_t len = end - start;
    if (!cp__os_commit((void *)start, len))
      cp__fatal("the kernel refused to make %zu bytes of the %s arena "
                "accessible (out of memory or overcommit limit)",
                len, a->wide ? "wide" : "compact");
    /* The first SMALL_HEAP bytes an arena commits are backed by 4 KiB
     * pages, the rest by huge pages where THP allows: THP fills a whole
     * 2 MiB page at its first touch, so a small heap on huge pages uses
     * more memory than its native build (one chunk for the first node;
     * a second, barely touched, for the 33rd type of a program with one
     * 64 KiB slab per type: 2.6 MiB more than native), and a heap that
     * grows past a few chunks is where huge pages pay.  Then the first
     * chunks get the advice too, for khugepaged to collapse. */
    bool small = a->committed_bytes < SMALL_HEAP;
    cp__os_advise_pages((void *)start, len, !small);
    a->committed[c] = CP_CHUNK_ZERO;
    a->committed_bytes += len;
    if (small && a->committed_bytes >= SMALL_HEAP)
      advise_committed_huge(a);
  }
}

/* Gives back the dirty chunks of every free run of a chunk or more,
 * consecutive ones in one call. */
static void purge(cp_arena_t *a) {
  for (uint32_t k = CHUNK_ORDER; k <= a->max_order; k++)
    for (uint32_t p = a->free_head[k]; p != CP_NONE; p = a->runs[p].next) {
      const uint32_t end = last_chunk(p, k) + 1;
      for (uint32_t c = chunk_of_page(p); c < end;) {
        if (a->committed[c] != CP_CHUNK_DIRTY) {
          c++;
          continue;
        }
        uint32_t e = c + 1;
        while (e < end && a->committed[e] == CP_CHUNK_DIRTY)
          e++;
        if (!cp__os_decommit(a->base + ((uintptr_t)c << CP_COMMIT_SHIFT),
                             (size_t)(e - c) << CP_COMMIT_SHIFT)) {
          /* Locked pages (mlock): they stay, and are tried again later. */
          a->purge_after = cp__now() + PURGE_BACKOFF;
          c = e;
          continue;
        }
        a->dirty_free_chunks -= e - c;
        for (; c < e; c++)
          a->committed[c] = CP_CHUNK_ZERO;
      }
    }
}

static void maybe_purge(cp_arena_t *a) {
  if (a->dirty_free_chunks == 0)
    return;
  double now = cp__now();
  if (now >= a->purge_after &&
      ((a->dirty_free_chunks << CP_COMMIT_SHIFT) > DIRTY_MAX ||
       now - a->dirty_since > DIRTY_DELAY))
    purge(a);
}

/* Frees the never-used run p of order k into the lists (merging with a
 * free buddy below it). */
static void release_new(cp_arena_t *a, uint32_t p, uint32_t k) {
  a->used_pages += 1u << k; /* cp__buddy_free takes it off */
  cp__buddy_free(a, p, k);
}

/* Carves a run of order k at the frontier, after the largest aligned runs
 * that bring the frontier to a multiple of 2^k; at the top of the arena,
 * where no such run fits, the rest in the largest aligned runs that do. */
static void carve(cp_arena_t *a, uint32_t k) {
  uint32_t p = a->frontier;
  const uint32_t n = a->npages;
  while (p < n && (p & ((1u << k) - 1)) != 0 &&
         (uint64_t)p + (1u << __builtin_ctz(p)) <= n) {
    release_new(a, p, (uint32_t)__builtin_ctz(p));
    p += 1u << __builtin_ctz(p);
  }
  if ((p & ((1u << k) - 1)) == 0 && (uint64_t)p + (1u << k) <= n) {
    release_new(a, p, k);
    p += 1u << k;
  } else {
    while (p < n) {
      uint32_t j = p ? (uint32_t)__builtin_ctz(p) : a->max_order;
      if (j > a->max_order)
        j = a->max_order;
      while ((uint64_t)p + (1u << j) > n)
        j--;
      release_new(a, p, j);
      p += 1u << j;
    }
  }
  a->frontier = p;
}

/* The smallest order from k up with a free run, or max_order + 1. */
static uint32_t free_order(const cp_arena_t *a, uint32_t k) {
  while (k <= a->max_order && a->free_head[k] == CP_NONE)
    k++;
  return k;
}

static uint32_t take(cp_arena_t *a, uint32_t k, bool to_zero) {
  if (k > a->max_order)
    return CP_NONE;
  maybe_purge(a);
  uint32_t j = free_order(a, k);
  if (j > a->max_order && a->frontier < a->npages) {
    carve(a, k);
    j = free_order(a, k);
  }
  if (j > a->max_order)
    return CP_NONE;
  uint32_t p = a->free_head[j];
  unlink_run(a, p, j);
  /* The run's chunks were wholly free only if it comes from a run of a
   * chunk or more; those waiting to be given back wait no longer. */
  const bool whole = j >= CHUNK_ORDER;
  while (j > k) {
    j--;
    push(a, p + (1u << j), j);
  }
  a->runs[p].order = (uint8_t)k;
  a->used_pages += 1u << k;
  if (a->used_pages > a->peak_pages)
    a->peak_pages = a->used_pages;
  for (uint32_t c = chunk_of_page(p); whole && c <= last_chunk(p, k); c++)
    if (a->committed[c] == CP_CHUNK_DIRTY)
      a->dirty_free_chunks--;
  commit_run(a, p, k);
  /* A chunk the run shares with others is marked here, under the lock;
   * chunks that are the run's own are left to cp__buddy_zero, which needs
   * to know whether they read as zero. */
  if (!to_zero || k < CHUNK_ORDER)
    for (uint32_t c = chunk_of_page(p); c <= last_chunk(p, k); c++)
      if (a->committed[c] != CP_CHUNK_DIRTY) /* read outside the lock */
        a->committed[c] = CP_CHUNK_DIRTY;
  return p;
}

uint32_t cp__buddy_alloc(cp_arena_t *a, uint32_t k) {
  return take(a, k, false);
}

uint32_t cp__buddy_alloc_to_zero(cp_arena_t *a, uint32_t k) {
  return take(a, k, true);
}

void cp__buddy_zero(cp_arena_t *a, char *p, size_t bytes) {
  const uintptr_t chunk = (uintptr_t)1 << CP_COMMIT_SHIFT;
  for (char *q = p, *end = p + bytes; q < end;) {
    char *next = (char *)(((uintptr_t)q & ~(chunk - 1)) + chunk);
    if (next > end)
      next = end;
    uint8_t *state =
        &a->committed[((uintptr_t)q - (uintptr_t)a->base) >> CP_COMMIT_SHIFT];
    /* ZERO is seen only on a chunk of the run's own (take), which no
     * other thread reads or writes until the run is freed; a chunk shared
     * with other runs is DIRTY already, and take writes it only when it
     * is not. */
    if (*state == CP_CHUNK_ZERO)
      *state = CP_CHUNK_DIRTY;
    else
      memset(q, 0, (size_t)(next - q));
    q = next;
  }
}

bool cp__buddy_move(cp_arena_t *a, char *from, char *to, size_t bytes) {
  cp__assert(((uintptr_t)from | (uintptr_t)to | bytes) %
                 ((uintptr_t)1 << CP_COMMIT_SHIFT) ==
             0);
  if (!bytes || !cp__os_move(from, bytes, to))
    return false;
  /* The source range is a hole now, reserved again: committed afresh, it
   * reads as zero, and its chunks say so to the buddy that gets them. */
  if (!cp__os_commit(from, bytes))
    cp__fatal("the kernel refused to make %zu bytes of the %s arena "
              "accessible again after moving its pages (out of memory or "
              "overcommit limit)",
              bytes, a->wide ? "wide" : "compact");
  cp__os_advise_pages(from, bytes, a->committed_bytes >= SMALL_HEAP);
  uintptr_t f = (uintptr_t)(from - a->base) >> CP_COMMIT_SHIFT,
            t = (uintptr_t)(to - a->base) >> CP_COMMIT_SHIFT;
  for (uintptr_t c = 0; c < bytes >> CP_COMMIT_SHIFT; c++) {
    a->committed[f + c] = CP_CHUNK_ZERO;
    a->committed[t + c] = CP_CHUNK_DIRTY;
  }
  return true;
}

void cp__buddy_free(cp_arena_t *a, uint32_t p, uint32_t k) {
  cp__assert((p & ((1u << k) - 1)) == 0);
  a->used_pages -= 1u << k;
  const uint32_t freed = p, freed_order = k;
  while (k < a->max_order) {
    uint32_t b = p ^ (1u << k);
    if (b < a->first_page || (uint64_t)b + (1u << k) > a->npages ||
        a->runs[b].order != (uint8_t)(k | CP_BUDDY_FREE))
      break;
    unlink_run(a, b, k);
    a->runs[b].order = 0;
    a->runs[p].order = 0;
    p &= ~(1u << k);
    k++;
  }
  push(a, p, k);
  /* The chunks that are now wholly free are the freed run's: the buddies
   * it merged with of a chunk or more were wholly free already, and the
   * smaller ones lie in its chunk. */
  if (k >= CHUNK_ORDER) {
    const uint64_t before = a->dirty_free_chunks;
    for (uint32_t c = chunk_of_page(freed); c <= last_chunk(freed, freed_order);
         c++)
      if (a->committed[c] == CP_CHUNK_DIRTY)
        a->dirty_free_chunks++;
    if (before == 0 && a->dirty_free_chunks != 0)
      a->dirty_since = cp__now();
  }
  maybe_purge(a);
}

bool cp__buddy_is_valid(const cp_arena_t *a) {
  uint64_t free_pages = 0, dirty = 0;
  for (uint32_t k = 0; k <= a->max_order; k++) {
    uint32_t prev = CP_NONE;
    for (uint32_t p = a->free_head[k]; p != CP_NONE; p = a->runs[p].next) {
      if (p >= a->npages || (p & ((1u << k) - 1)) ||
          a->runs[p].order != (uint8_t)(k | CP_BUDDY_FREE) ||
          a->runs[p].prev != prev || a->pagemap[p] != NULL)
        return false;
      free_pages += 1u << k;
      prev = p;
      if (free_pages > a->npages)
        return false;
      for (uint32_t c = chunk_of_page(p);
           k >= CHUNK_ORDER && c <= last_chunk(p, k); c++)
        dirty += a->committed[c] == CP_CHUNK_DIRTY;
    }
  }
  return a->frontier >= a->first_page && a->frontier <= a->npages &&
         free_pages + a->used_pages + a->first_page +
                 (a->npages - a->frontier) ==
             a->npages &&
         dirty == a->dirty_free_chunks;
}
