/*
 * arena.c - a reserved range of address space and its metadata.
 *
 * The compact arena reserves its whole reach (2^32 granules) with no access
 * at start-up, so a handle always names an address inside it; pages become
 * accessible in 2 MiB chunks as the buddy allocator first hands them out.
 * Only the first `limit` bytes are managed (COMPACTPTR_ARENA_LIMIT), so tests
 * reach the switch with megabytes.  After the switch the same structure
 * manages the wide arena, a larger reservation outside the compact one.
 *
 * Metadata lives out of line in one zero-filled mapping, so untouched parts
 * of a large arena cost address space only: per page a slab pointer (the
 * page map), an order byte and two free-list links.
 */
#include "internal.h"

#include <string.h>

static size_t align_up(size_t v, size_t a) { return (v + a - 1) & ~(a - 1); }

bool cp__arena_init(cp_arena_t *a, size_t reserve, size_t limit,
                    uint32_t first_page, bool wide) {
  memset(a, 0, sizeof *a);
  if (limit > reserve)
    limit = reserve;
  size_t npages = limit >> CP_PAGE_SHIFT;
  if (npages > UINT32_MAX - 1 || npages <= first_page)
    return false;
  size_t nchunks = (limit + ((size_t)1 << CP_COMMIT_SHIFT) - 1) >> CP_COMMIT_SHIFT;

  size_t off_pagemap = 0;
  size_t off_next = align_up(off_pagemap + npages * sizeof(cp_slab_t *), 64);
  size_t off_prev = align_up(off_next + npages * sizeof(uint32_t), 64);
  size_t off_order = align_up(off_prev + npages * sizeof(uint32_t), 64);
  size_t off_commit = align_up(off_order + npages, 64);
  size_t meta = align_up(off_commit + nchunks, CP_PAGE_SIZE);

  char *m = cp__os_alloc_zeroed(meta);
  if (!m)
    return false;
  a->base = cp__os_reserve(reserve);
  if (!a->base) {
    cp__os_free(m, meta);
    return false;
  }
  a->reserved = reserve;
  a->meta = m;
  a->meta_bytes = meta;
  a->pagemap = (cp_slab_t **)(m + off_pagemap);
  a->link_next = (uint32_t *)(m + off_next);
  a->link_prev = (uint32_t *)(m + off_prev);
  a->order = (uint8_t *)(m + off_order);
  a->committed = (uint8_t *)(m + off_commit);
  a->npages = (uint32_t)npages;
  a->first_page = first_page;
  a->wide = wide;
  a->max_order = 0;
  while (((size_t)2 << a->max_order) <= npages)
    a->max_order++;
  for (uint32_t k = 0; k < 33; k++)
    a->free_head[k] = CP_NONE;

  /* Carve [first_page, npages) into the largest aligned runs that fit. */
  uint32_t p = first_page;
  while (p < npages) {
    uint32_t k = a->max_order;
    while (k > 0 && ((p & ((1u << k) - 1)) != 0 || (size_t)p + (1u << k) > npages))
      k--;
    cp__buddy_free(a, p, k);
    a->used_pages += 1u << k; /* cp__buddy_free subtracted it */
    p += 1u << k;
  }
  a->used_pages = 0;
  a->peak_pages = 0;
  return true;
}

void cp__arena_destroy(cp_arena_t *a) {
  cp__os_release(a->base, a->reserved);
  cp__os_free(a->meta, a->meta_bytes);
  memset(a, 0, sizeof *a);
}
