/*
 * os.c - the runtime's only contact with the kernel: address-space
 * reservation, commit and release (mmap/mprotect/madvise), the clock, and
 * the fatal-error path.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

_Noreturn void cp__fatal(const char *fmt, ...) {
  /* What the program wrote so far goes out first, to every stream it
   * opened (a log file as much as stdout), so nothing buffered is lost to
   * _exit and its output and the message appear in order.  No allocation
   * here: format into a stack buffer and write(2) it. */
  fflush(NULL);
  char buf[1024];
  int n = snprintf(buf, sizeof buf, "compactptr: ");
  va_list ap;
  va_start(ap, fmt);
  n += vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
  va_end(ap);
  if (n > (int)sizeof buf - 2)
    n = (int)sizeof buf - 2;
  buf[n++] = '\n';
  ssize_t w = write(2, buf, (size_t)n);
  (void)w;
  _exit(70);
}

void *cp__os_reserve(size_t bytes) {
  /* Align to 2 MiB so commit chunks can be backed by transparent huge
   * pages: fewer page faults when a heap is built or switched, fewer TLB
   * misses when it is walked. */
  const size_t huge = (size_t)1 << 21;
  char *p = mmap(NULL, bytes + huge, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return NULL;
  char *a = (char *)(((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1));
  if (a > p)
    munmap(p, (size_t)(a - p));
  munmap(a + bytes, (size_t)(p + huge - a));
  (void)madvise(a, bytes, MADV_HUGEPAGE);
  return a;
}

bool cp__os_commit(void *p, size_t bytes) {
  return mprotect(p, bytes, PROT_READ | PROT_WRITE) == 0;
}

void cp__os_decommit(void *p, size_t bytes) {
  /* The pages read as zero afterwards and are no longer resident. */
  (void)madvise(p, bytes, MADV_DONTNEED);
}

void cp__os_release(void *p, size_t bytes) {
  if (p)
    munmap(p, bytes);
}

void *cp__os_alloc_zeroed(size_t bytes) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

void cp__os_free(void *p, size_t bytes) {
  if (p)
    munmap(p, bytes);
}

double cp__now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
