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
 * Runs are taken from the head of each list and splits keep the lower half,
 * so a young arena fills from its bottom and stays compactly committed.
 */
#include "internal.h"

static void push(cp_arena_t *a, uint32_t p, uint32_t k) {
  uint32_t h = a->free_head[k];
  a->link_next[p] = h;
  a->link_prev[p] = CP_NONE;
  if (h != CP_NONE)
    a->link_prev[h] = p;
  a->free_head[k] = p;
  a->order[p] = (uint8_t)(k | CP_BUDDY_FREE);
}

static void unlink_run(cp_arena_t *a, uint32_t p, uint32_t k) {
  uint32_t n = a->link_next[p], pr = a->link_prev[p];
  if (pr != CP_NONE)
    a->link_next[pr] = n;
  else
    a->free_head[k] = n;
  if (n != CP_NONE)
    a->link_prev[n] = pr;
}

uint32_t cp__order_for_bytes(size_t bytes) {
  size_t pages = (bytes + CP_PAGE_SIZE - 1) >> CP_PAGE_SHIFT;
  uint32_t k = 0;
  while (((size_t)1 << k) < pages)
    k++;
  return k;
}

static void commit_run(cp_arena_t *a, uint32_t p, uint32_t k) {
  const uint32_t per_chunk_shift = CP_COMMIT_SHIFT - CP_PAGE_SHIFT;
  uint32_t first = p >> per_chunk_shift;
  uint32_t last = (uint32_t)(((uint64_t)p + (1u << k) - 1) >> per_chunk_shift);
  for (uint32_t c = first; c <= last; c++) {
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
    /* The first chunk an arena commits is backed by 4 KiB pages, the
     * others by huge pages where THP allows: a 2 MiB page touched for a
     * heap of a few KiB would make a small program's compact build use
     * more memory than its native build (THP fills the whole huge page at
     * the first touch), and a heap that grows past one chunk is where huge
     * pages pay. */
    cp__os_advise_pages((void *)start, len, a->committed_bytes != 0);
    a->committed[c] = 1;
    a->committed_bytes += len;
  }
}

uint32_t cp__buddy_alloc(cp_arena_t *a, uint32_t k) {
  if (k > a->max_order)
    return CP_NONE;
  uint32_t j = k;
  while (j <= a->max_order && a->free_head[j] == CP_NONE)
    j++;
  if (j > a->max_order)
    return CP_NONE;
  uint32_t p = a->free_head[j];
  unlink_run(a, p, j);
  while (j > k) {
    j--;
    push(a, p + (1u << j), j);
  }
  a->order[p] = (uint8_t)k;
  a->used_pages += 1u << k;
  if (a->used_pages > a->peak_pages)
    a->peak_pages = a->used_pages;
  commit_run(a, p, k);
  return p;
}

void cp__buddy_free(cp_arena_t *a, uint32_t p, uint32_t k) {
  cp__assert((p & ((1u << k) - 1)) == 0);
  a->used_pages -= 1u << k;
  while (k < a->max_order) {
    uint32_t b = p ^ (1u << k);
    if (b < a->first_page || (uint64_t)b + (1u << k) > a->npages ||
        a->order[b] != (uint8_t)(k | CP_BUDDY_FREE))
      break;
    unlink_run(a, b, k);
    a->order[b] = 0;
    a->order[p] = 0;
    p &= ~(1u << k);
    k++;
  }
  push(a, p, k);
  /* Whole commit chunks go back to the kernel; they stay accessible. */
  if (k + CP_PAGE_SHIFT >= CP_COMMIT_SHIFT && a->committed[p >> (CP_COMMIT_SHIFT - CP_PAGE_SHIFT)])
    cp__os_decommit(cp__arena_addr(a, p), (size_t)1 << (k + CP_PAGE_SHIFT));
}

bool cp__buddy_is_valid(const cp_arena_t *a) {
  uint64_t free_pages = 0;
  for (uint32_t k = 0; k <= a->max_order; k++) {
    uint32_t prev = CP_NONE;
    for (uint32_t p = a->free_head[k]; p != CP_NONE; p = a->link_next[p]) {
      if (p >= a->npages || (p & ((1u << k) - 1)) ||
          a->order[p] != (uint8_t)(k | CP_BUDDY_FREE) ||
          a->link_prev[p] != prev || a->pagemap[p] != NULL)
        return false;
      free_pages += 1u << k;
      prev = p;
      if (free_pages > a->npages)
        return false;
    }
  }
  return free_pages + a->used_pages + a->first_page == a->npages;
}
