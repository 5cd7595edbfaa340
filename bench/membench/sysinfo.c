/*
 * sysinfo.c - what the system says about its caches, TLBs and huge pages.
 *
 * Three sources for cache sizes, in the order they are trusted: the sysfs
 * cache directories (absent on some VMs), sysconf(_SC_LEVEL*_CACHE_SIZE)
 * (glibc, itself from CPUID, with its own quirks) and CPUID read here
 * (deterministic cache parameters: leaf 4 on Intel, 0x8000001D on AMD,
 * falling back to AMD's 0x80000005/6).  TLB sizes come from CPUID only
 * (leaf 0x18 on Intel, 0x80000005/6 on AMD).  Sources that disagree are
 * flagged, as are measured knees that disagree with the reported size.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "membench.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int read_line(const char *path, char *buf, size_t len) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char *ok = fgets(buf, (int)len, f);
  fclose(f);
  if (!ok) return -1;
  buf[strcspn(buf, "\n")] = 0;
  return 0;
}

void mb_read_bracketed(const char *path, char *buf, size_t len) {
  char line[256];
  buf[0] = 0;
  if (read_line(path, line, sizeof line) != 0) return;
  char *a = strchr(line, '['), *b = a ? strchr(a, ']') : NULL;
  if (a && b) {
    *b = 0;
    snprintf(buf, len, "%s", a + 1);
  } else {
    snprintf(buf, len, "%s", line);
  }
}

/** sysfs: highest-level unified cache is the LLC. */
static void from_sysfs(uint64_t out[3]) {
  for (int idx = 0; idx < 16; idx++) {
    char path[128], type[32], level[16], size[32];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", idx);
    if (read_line(path, type, sizeof type) != 0) break;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", idx);
    if (read_line(path, level, sizeof level) != 0) continue;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", idx);
    if (read_line(path, size, sizeof size) != 0) continue;
    uint64_t bytes;
    if (mb_parse_size(size, &bytes, NULL, 0) != 0) continue;
    int lv = atoi(level);
    if (lv == 1 && strcmp(type, "Data") == 0) out[0] = bytes;
    if (lv == 2 && strcmp(type, "Instruction") != 0) out[1] = bytes;
    if (lv >= 2 && strcmp(type, "Unified") == 0) out[2] = bytes;
  }
}

static void from_sysconf(uint64_t out[3]) {
  long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE),
       l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (l1 > 0) out[0] = (uint64_t)l1;
  if (l2 > 0) out[1] = (uint64_t)l2;
  if (l3 > 0)
    out[2] = (uint64_t)l3;
  else if (l2 > 0)
    out[2] = (uint64_t)l2;
}

static int is_amd(void) {
  uint32_t r[4];
  mb_cpuid(0, 0, r);
  return r[1] == 0x68747541u; /* "Auth" */
}

static void from_cpuid(uint64_t out[3]) {
  uint32_t r[4];
  uint32_t leaf = is_amd() ? 0x8000001Du : 4u;
  int found = 0;
  for (uint32_t sub = 0; sub < 16 && mb_cpuid(leaf, sub, r); sub++) {
    unsigned type = r[0] & 0x1f, level = (r[0] >> 5) & 7;
    if (type == 0) break;
    uint64_t size = (uint64_t)((r[1] >> 22) + 1) * (((r[1] >> 12) & 0x3ff) + 1) *
                    ((r[1] & 0xfff) + 1) * ((uint64_t)r[2] + 1);
    found = 1;
    if (level == 1 && type == 1) out[0] = size;
    if (level == 2 && type != 2) out[1] = size;
    if (level >= 2 && type == 3) out[2] = size;
  }
  if (!found && is_amd()) {
    if (mb_cpuid(0x80000005u, 0, r)) out[0] = (uint64_t)(r[2] >> 24) << 10;
    if (mb_cpuid(0x80000006u, 0, r)) {
      out[1] = (uint64_t)(r[2] >> 16) << 10;
      uint64_t l3 = (uint64_t)(r[3] >> 18) * (512u << 10);
      out[2] = l3 ? l3 : out[1];
    }
  }
}

static void tlb_from_cpuid(mb_sysinfo_t *s) {
  uint32_t r[4];
  if (is_amd()) {
    if (mb_cpuid(0x80000005u, 0, r)) {
      s->dtlb_l1_4k = (r[1] >> 16) & 0xff;
      s->dtlb_l1_2m = (r[0] >> 16) & 0xff;
    }
    if (mb_cpuid(0x80000006u, 0, r)) {
      s->dtlb_l2_4k = (r[1] >> 16) & 0xfff;
      s->dtlb_l2_2m = (r[0] >> 16) & 0xfff;
    }
    return;
  }
  if (!mb_cpuid(0x18, 0, r)) return;
  uint32_t maxsub = r[0];
  for (uint32_t sub = 0; sub <= maxsub && sub < 32; sub++) {
    mb_cpuid(0x18, sub, r);
    unsigned type = r[3] & 0x1f, level = (r[3] >> 5) & 7;
    if (type != 1 && type != 3 && type != 4) continue; /* data/unified/load */
    unsigned entries = (r[1] >> 16) * r[2];
    if (level == 1) {
      if (r[1] & 1) s->dtlb_l1_4k += entries;
      if (r[1] & 2) s->dtlb_l1_2m += entries;
    } else if (level == 2) {
      if (r[1] & 1) s->dtlb_l2_4k += entries;
      if (r[1] & 2) s->dtlb_l2_2m += entries;
    }
  }
}

static void cpu_model(char *buf, size_t len) {
  uint32_t r[12];
  if (!mb_cpuid(0x80000004u, 0, r + 8)) {
    snprintf(buf, len, "unknown");
    return;
  }
  mb_cpuid(0x80000002u, 0, r);
  mb_cpuid(0x80000003u, 0, r + 4);
  char s[49];
  memcpy(s, r, 48);
  s[48] = 0;
  char *p = s;
  while (*p == ' ') p++;
  size_t n = strlen(p);
  while (n && isspace((unsigned char)p[n - 1])) p[--n] = 0;
  snprintf(buf, len, "%s", p);
}

static uint64_t meminfo(const char *key) {
  FILE *f = fopen("/proc/meminfo", "r");
  char line[256];
  uint64_t v = 0;
  size_t kl = strlen(key);
  if (!f) return 0;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, key, kl) == 0 && line[kl] == ':') {
      v = strtoull(line + kl + 1, NULL, 10);
      break;
    }
  fclose(f);
  return v;
}

void mb_sysinfo_read(mb_sysinfo_t *s) {
  static const char *const names[3] = {"sysfs", "sysconf", "cpuid"};
  memset(s, 0, sizeof *s);
  from_sysfs(s->sysfs);
  from_sysconf(s->sysconf);
  from_cpuid(s->cpuid);
  for (int l = 0; l < 3; l++) {
    const uint64_t *src[3] = {s->sysfs, s->sysconf, s->cpuid};
    for (int k = 0; k < 3; k++)
      if (src[k][l]) {
        if (!s->reported[l]) {
          s->reported[l] = src[k][l];
          s->reported_src[l] = names[k];
        } else if (src[k][l] != s->reported[l]) {
          s->sources_disagree[l] = 1;
        }
      }
  }
  tlb_from_cpuid(s);
  cpu_model(s->cpu_model, sizeof s->cpu_model);
  mb_read_bracketed("/sys/kernel/mm/transparent_hugepage/enabled",
                    s->thp_enabled, sizeof s->thp_enabled);
  mb_read_bracketed("/sys/kernel/mm/transparent_hugepage/defrag",
                    s->thp_defrag, sizeof s->thp_defrag);
  if (meminfo("Hugepagesize") == 2048) s->hugetlb_free = meminfo("HugePages_Free");
}
