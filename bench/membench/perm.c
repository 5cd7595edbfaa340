/*
 * perm.c - random cyclic visiting orders for pointer chasing.
 *
 * A chase must defeat the prefetchers: lines are visited in a random order
 * that forms one cycle through every line of the buffer, so the latency
 * of each load is exposed and the steady state touches the whole working
 * set.  With the TLB-locality knob the order is random at two levels
 * (groups of pages, lines inside a group), so the TLB working set is the
 * group while the cache working set is still the whole buffer.
 *
 * PRNG: xoshiro256** seeded through splitmix64 (public-domain reference
 * algorithms by Blackman and Vigna); deterministic for a given seed, which
 * every report prints.  Tests: test/membench/perm_test.c.
 */
#include "membench.h"

#include <stdlib.h>

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void mb_rng_seed(mb_rng_t *r, uint64_t seed) {
  for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t mb_rng_next(mb_rng_t *r) {
  uint64_t *s = r->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

uint64_t mb_rng_below(mb_rng_t *r, uint64_t n) {
  /* Lemire's multiply-shift with rejection: unbiased. */
  unsigned __int128 m = (unsigned __int128)mb_rng_next(r) * n;
  uint64_t l = (uint64_t)m;
  if (l < n) {
    uint64_t t = -n % n;
    while (l < t) {
      m = (unsigned __int128)mb_rng_next(r) * n;
      l = (uint64_t)m;
    }
  }
  return (uint64_t)(m >> 64);
}

void mb_shuffle_u32(mb_rng_t *r, uint32_t *a, size_t n) {
  for (size_t i = n; i > 1; i--) {
    size_t j = (size_t)mb_rng_below(r, i);
    uint32_t t = a[i - 1];
    a[i - 1] = a[j];
    a[j] = t;
  }
}

void mb_line_order(mb_rng_t *r, uint32_t *order, size_t nlines,
                   size_t lines_per_page, size_t group_pages) {
  if (group_pages == 0 || lines_per_page == 0) {
    for (size_t i = 0; i < nlines; i++) order[i] = (uint32_t)i;
    mb_shuffle_u32(r, order, nlines);
    return;
  }
  size_t group_lines = lines_per_page * group_pages;
  size_t ngroups = (nlines + group_lines - 1) / group_lines;
  uint32_t *groups = malloc(ngroups * sizeof *groups);
  if (!groups) abort();
  for (size_t g = 0; g < ngroups; g++) groups[g] = (uint32_t)g;
  mb_shuffle_u32(r, groups, ngroups);
  size_t k = 0;
  for (size_t gi = 0; gi < ngroups; gi++) {
    size_t first = (size_t)groups[gi] * group_lines;
    size_t last = first + group_lines;
    if (last > nlines) last = nlines;
    size_t start = k;
    for (size_t l = first; l < last; l++) order[k++] = (uint32_t)l;
    mb_shuffle_u32(r, order + start, last - first);
  }
  free(groups);
}

void mb_link_cycle(void *buf, size_t line, const uint32_t *order, size_t n) {
  char *b = buf;
  for (size_t i = 0; i < n; i++) {
    size_t next = order[i + 1 < n ? i + 1 : 0];
    *(void **)(b + (size_t)order[i] * line) = b + next * line;
  }
}
