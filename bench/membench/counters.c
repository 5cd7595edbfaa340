/*
 * counters.c - optional hardware counters through perf_event_open(2):
 * dTLB load misses and last-level-cache load misses of the calling thread.
 *
 * Counters are optional: a kernel without perf events, a paranoid setting
 * or a VM without a virtual PMU refuses them, and each refused counter is
 * reported as unavailable with the reason, never as a zero count.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "membench.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

const char *const mb_counter_names[MB_NCTR] = {"dtlb_load_misses",
                                               "llc_load_misses"};

static long perf_open(struct perf_event_attr *a) {
  return syscall(SYS_perf_event_open, a, 0 /* this thread */, -1 /* any cpu */,
                 -1, 0);
}

void mb_counters_open(mb_counters_t *c, int enable) {
  static const uint64_t cfg[MB_NCTR] = {
      PERF_COUNT_HW_CACHE_DTLB | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
          (PERF_COUNT_HW_CACHE_RESULT_MISS << 16),
      PERF_COUNT_HW_CACHE_LL | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
          (PERF_COUNT_HW_CACHE_RESULT_MISS << 16)};
  c->enabled = enable;
  for (int i = 0; i < MB_NCTR; i++) {
    c->fd[i] = -1;
    if (!enable) {
      snprintf(c->why[i], sizeof c->why[i], "not requested (--no-counters)");
      continue;
    }
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_HW_CACHE;
    a.config = cfg[i];
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    long fd = perf_open(&a);
    if (fd < 0) {
      int e = errno;
      const char *hint = "";
      if (e == ENOENT || e == EOPNOTSUPP)
        hint = " (no such hardware event: a VM without a virtual PMU?)";
      else if (e == EACCES || e == EPERM)
        hint = " (see /proc/sys/kernel/perf_event_paranoid)";
      else if (e == ENOSYS)
        hint = " (kernel without perf events)";
      snprintf(c->why[i], sizeof c->why[i], "perf_event_open: %s%s",
               strerror(e), hint);
      continue;
    }
    c->fd[i] = (int)fd;
    c->why[i][0] = 0;
  }
}

void mb_counters_close(mb_counters_t *c) {
  for (int i = 0; i < MB_NCTR; i++)
    if (c->fd[i] >= 0) {
      close(c->fd[i]);
      c->fd[i] = -1;
    }
}

int mb_counter_ok(const mb_counters_t *c, int i) { return c->fd[i] >= 0; }

void mb_counters_read(const mb_counters_t *c, int64_t v[MB_NCTR]) {
  for (int i = 0; i < MB_NCTR; i++) {
    uint64_t x;
    v[i] = -1;
    if (c->fd[i] >= 0 && read(c->fd[i], &x, sizeof x) == (ssize_t)sizeof x)
      v[i] = (int64_t)x;
  }
}
