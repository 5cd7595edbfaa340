/*
 * mem.c - benchmark buffers with a chosen page size, and what the kernel
 * really gave us.
 *
 * 4 KiB kind: anonymous mapping with MADV_NOHUGEPAGE.  2 MiB kind: a
 * MAP_HUGETLB mapping when enough huge pages are reserved
 * (vm.nr_hugepages), otherwise an anonymous mapping trimmed to 2 MiB
 * alignment and advised MADV_HUGEPAGE.  Either way every page is touched
 * before timing, so faults (and THP's first-touch huge-page allocation)
 * stay out of the measurement.  /proc/self/smaps then says how much of the
 * mapping is backed by huge pages; below 100% the buffer records why.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "membench.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifndef MADV_NOHUGEPAGE
#define MADV_NOHUGEPAGE 15
#endif

static size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

static void touch(char *p, size_t len) {
  for (size_t off = 0; off < len; off += MB_PAGE) p[off] = 1;
}

int mb_smaps_huge(const void *addr, size_t len, uint64_t *huge, uint64_t *total) {
  FILE *f = fopen("/proc/self/smaps", "r");
  if (!f) return -1;
  uintptr_t lo = (uintptr_t)addr, hi = lo + len;
  char line[512];
  int in = 0, hugetlb = 0;
  uint64_t vsize = 0;
  *huge = *total = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long s, e;
    unsigned long long kb;
    if (sscanf(line, "%lx-%lx ", &s, &e) == 2 && strchr(line, '-') < strchr(line, ' ')) {
      in = s < hi && e > lo;
      hugetlb = 0;
      vsize = e - s;
      if (in) *total += vsize;
      continue;
    }
    if (!in) continue;
    if (sscanf(line, "AnonHugePages: %llu kB", &kb) == 1) *huge += kb << 10;
    if (sscanf(line, "KernelPageSize: %llu kB", &kb) == 1 && kb >= 2048) hugetlb = 1;
    if (hugetlb && (sscanf(line, "Private_Hugetlb: %llu kB", &kb) == 1 ||
                    sscanf(line, "Shared_Hugetlb: %llu kB", &kb) == 1))
      *huge += kb << 10;
  }
  fclose(f);
  return 0;
}

static void set_fraction(mb_buf_t *b) {
  uint64_t huge, total;
  if (mb_smaps_huge(b->base, b->maplen, &huge, &total) != 0 || total == 0) {
    b->huge_fraction = -1; /* unknown */
    return;
  }
  b->huge_fraction = (double)huge / (double)total;
  if (b->huge_fraction > 1) b->huge_fraction = 1;
}

int mb_buf_alloc(mb_buf_t *b, size_t len, mb_page_kind_t kind,
                 const mb_sysinfo_t *si) {
  memset(b, 0, sizeof *b);
  b->len = len;
  b->kind = kind;
  if (kind == MB_PAGES_4K) {
    b->maplen = round_up(len, MB_PAGE);
    b->map = mmap(NULL, b->maplen, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (b->map == MAP_FAILED) goto fail;
    b->base = b->map;
    if (madvise(b->base, b->maplen, MADV_NOHUGEPAGE) != 0)
      snprintf(b->why, sizeof b->why, "madvise(MADV_NOHUGEPAGE): %s", strerror(errno));
    touch(b->base, b->maplen);
    set_fraction(b);
    if (b->huge_fraction > 0 && !b->why[0])
      snprintf(b->why, sizeof b->why, "kernel used huge pages despite MADV_NOHUGEPAGE");
    return 0;
  }

  size_t alen = round_up(len, MB_HUGE);
  if (si->hugetlb_free * (uint64_t)MB_HUGE >= alen) {
    void *p = mmap(NULL, alen, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
    if (p != MAP_FAILED) {
      b->map = b->base = p;
      b->maplen = alen;
      b->hugetlb = 1;
      touch(b->base, alen);
      set_fraction(b);
      return 0;
    }
  }
  /* THP: over-allocate, trim to 2 MiB alignment, advise, touch. */
  size_t over = alen + MB_HUGE;
  char *m = mmap(NULL, over, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) goto fail;
  char *base = (char *)round_up((uintptr_t)m, MB_HUGE);
  if (base > m) munmap(m, (size_t)(base - m));
  char *end = base + alen;
  if (end < m + over) munmap(end, (size_t)(m + over - end));
  b->map = b->base = base;
  b->maplen = alen;
  int adv = madvise(base, alen, MADV_HUGEPAGE);
  int adv_errno = errno;
  touch(base, alen);
  set_fraction(b);
  if (b->huge_fraction < 0.999) {
    char hugetlb[64];
    snprintf(hugetlb, sizeof hugetlb, "%s",
             si->hugetlb_free ? "too few hugetlb pages reserved"
                              : "no hugetlb pages reserved (vm.nr_hugepages)");
    if (adv != 0)
      snprintf(b->why, sizeof b->why, "madvise(MADV_HUGEPAGE): %s; %s",
               strerror(adv_errno), hugetlb);
    else if (strcmp(si->thp_enabled, "never") == 0)
      snprintf(b->why, sizeof b->why, "THP mode 'never'; %s", hugetlb);
    else if (!si->thp_enabled[0])
      snprintf(b->why, sizeof b->why, "kernel without THP; %s", hugetlb);
    else if (b->huge_fraction < 0)
      snprintf(b->why, sizeof b->why, "/proc/self/smaps unreadable");
    else
      snprintf(b->why, sizeof b->why,
               "THP '%s' (defrag '%s') backed %.0f%%: no free 2 MiB blocks "
               "(fragmentation or memory limit); %s",
               si->thp_enabled, si->thp_defrag, 100 * b->huge_fraction, hugetlb);
  }
  return 0;

fail:
  fprintf(stderr, "compactptr-membench: cannot map %zu bytes: %s\n", len,
          strerror(errno));
  b->map = NULL;
  return -1;
}

void mb_buf_free(mb_buf_t *b) {
  if (b->map) munmap(b->map, b->maplen);
  b->map = b->base = NULL;
}

void mb_flush_range(const void *p, size_t len) {
  uintptr_t a = (uintptr_t)p & ~(uintptr_t)(MB_LINE - 1), e = (uintptr_t)p + len;
  for (; a < e; a += MB_LINE) __asm__ __volatile__("clflush (%0)" ::"r"(a) : "memory");
  __asm__ __volatile__("mfence" ::: "memory");
}

void mb_sweep_caches(size_t bytes) {
  static char *buf;
  static size_t have;
  static volatile uint64_t sink;
  (void)sink;
  if (have < bytes) {
    if (buf) munmap(buf, have);
    buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED) {
      buf = NULL;
      have = 0;
      return;
    }
    have = bytes;
    memset(buf, 1, bytes);
  }
  uint64_t s = 0;
  for (size_t i = 0; i < bytes; i += MB_LINE) s += *(volatile uint64_t *)(buf + i);
  sink = s;
}
