/*
 * timing.c - the clock of compactptr-membench: CPUID, the invariant-TSC
 * check, TSC calibration against CLOCK_MONOTONIC, thread pinning and the
 * min/median/p99 summary of repeated measurements.
 *
 * The TSC reads themselves are inline in membench.h (mb_tsc_begin/end).
 * Tests: test/membench/stats and the smoke tests (every subcommand reports
 * the calibrated frequency).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "membench.h"

#include <cpuid.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

int mb_have_rdtscp = 1;

int mb_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4]) {
  uint32_t max = __get_cpuid_max(leaf & 0x80000000u, NULL);
  if (max == 0 || leaf > max) {
    r[0] = r[1] = r[2] = r[3] = 0;
    return 0;
  }
  __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
  return 1;
}

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int mb_clock_init(mb_clock_t *c, unsigned windows, unsigned window_ms) {
  uint32_t r[4];
  memset(c, 0, sizeof *c);
  if (!mb_cpuid(1, 0, r) || !(r[3] & (1u << 4))) {
    fprintf(stderr, "compactptr-membench: this CPU has no time-stamp counter\n");
    return -1;
  }
  c->hypervisor = !!(r[2] & (1u << 31));
  mb_cpuid(0x80000001u, 0, r);
  c->rdtscp = !!(r[3] & (1u << 27));
  mb_have_rdtscp = c->rdtscp;
  mb_cpuid(0x80000007u, 0, r);
  c->invariant_tsc = !!(r[3] & (1u << 8));

  if (windows == 0) windows = 1;
  if (windows > 16) windows = 16;
  double hz[16];
  for (unsigned w = 0; w < windows; w++) {
    /* Bracket the TSC reads tightly with clock reads on both ends. */
    double t0 = now_ns();
    uint64_t c0 = mb_tsc_begin();
    double t1;
    do {
      t1 = now_ns();
    } while (t1 - t0 < window_ms * 1e6);
    uint64_t c1 = mb_tsc_end();
    double t2 = now_ns();
    hz[w] = (double)(c1 - c0) * 1e9 / ((t1 + t2) / 2 - t0);
  }
  /* Resolution: some CPUs and hypervisors advance the TSC in steps of
   * several ticks, which bounds what one timed operation can resolve. */
  uint64_t step = UINT64_MAX;
  for (int i = 0; i < 2000; i++) {
    uint64_t a = __builtin_ia32_rdtsc(), b;
    while ((b = __builtin_ia32_rdtsc()) == a) {
    }
    if (b - a < step) step = b - a;
  }
  c->resolution = (double)step;
  mb_stats_t s = mb_stats(hz, windows);
  c->tsc_hz = s.median;
  c->calib_spread = s.median > 0 ? (s.max - s.min) / s.median : 0;
  if (!(c->tsc_hz > 1e6)) {
    fprintf(stderr, "compactptr-membench: TSC calibration failed (%g Hz)\n",
            c->tsc_hz);
    return -1;
  }
  return 0;
}

int mb_pin(int cpu) {
  if (cpu < 0) cpu = sched_getcpu();
  if (cpu < 0) return -1;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) return -1;
  return cpu;
}

mb_stats_t mb_stats(double *v, size_t n) {
  mb_stats_t s = {0, 0, 0, 0, 0, n};
  if (n == 0) return s;
  qsort(v, n, sizeof *v, cmp_double);
  double sum = 0;
  for (size_t i = 0; i < n; i++) sum += v[i];
  s.min = v[0];
  s.max = v[n - 1];
  s.mean = sum / (double)n;
  s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  /* Nearest rank: the smallest value with at least 99% of samples <= it. */
  size_t rank = (size_t)((99 * n + 99) / 100); /* ceil(0.99 n) */
  if (rank < 1) rank = 1;
  s.p99 = v[rank - 1];
  return s;
}

long mb_switches(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_THREAD, &ru) != 0) return -1;
  return ru.ru_nvcsw + ru.ru_nivcsw;
}
