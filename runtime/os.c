/*
 * os.c - the runtime's only contact with the kernel: address-space
 * reservation, commit and release (mmap/mprotect/madvise), the clock, and
 * the fatal-error path.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* Threads in the process now, from /proc (glibc's __libc_single_threaded
 * stays false once a thread was ever started: the switch's own copy
 * threads would count for good); 0 if unknown.  No allocation. */
static long live_threads(void) {
  char buf[2048];
  int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0)
    return 0;
  buf[n] = 0;
  const char *t = strstr(buf, "\nThreads:");
  return t ? strtol(t + 9, NULL, 10) : 0;
}

/* fflush(NULL) takes every stream's lock in turn, and another thread may
 * hold one for as long as it likes: a thread blocked in fgets on stdin
 * kept the fatal path, and so the process, waiting forever with nothing
 * printed.  With other threads alive, stdout and stderr are flushed when
 * their locks come free within about 50 ms (a thread in the middle of a
 * printf lets go at once), and other streams are left as they are. */
void cp__flush_streams(void) {
  if (live_threads() == 1) {
    fflush(NULL);
    return;
  }
  FILE *const streams[] = {stdout, stderr};
  for (size_t i = 0; i < sizeof streams / sizeof *streams; i++)
    for (int tries = 0; tries < 50; tries++) {
      if (ftrylockfile(streams[i]) == 0) {
        fflush_unlocked(streams[i]);
        funlockfile(streams[i]);
        break;
      }
      struct timespec ms = {0, 1000000};
      nanosleep(&ms, NULL);
    }
}

/* The message of cp__fatal and cp__fatal_no_memory, with `note` after it. */
static _Noreturn void fatal_v(const char *note, const char *fmt, va_list ap) {
  /* What the program wrote so far goes out first, to every stream it
   * opened (a log file as much as stdout), so nothing buffered is lost to
   * _exit and its output and the message appear in order.  No allocation
   * here: format into a stack buffer and write(2) it. */
  cp__flush_streams();
  char buf[2048]; /* a refused switch names the thread and the way out */
  int n = snprintf(buf, sizeof buf, "compactptr: ");
  n += vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
  if (n < (int)sizeof buf - 1)
    n += snprintf(buf + n, sizeof buf - (size_t)n - 1, "%s", note);
  if (n > (int)sizeof buf - 2)
    n = (int)sizeof buf - 2;
  buf[n++] = '\n';
  ssize_t w = write(2, buf, (size_t)n);
  (void)w;
  _exit(70);
}

_Noreturn void cp__fatal(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fatal_v("", fmt, ap);
}

_Noreturn void cp__fatal_no_memory(const char *fmt, ...) {
  /* A mapping that fails under an address-space limit fails because of
   * it, more often than not: say so, with the knob that moves it. */
  char note[160] = "";
  uint64_t limit, left = cp__os_address_space_free(&limit);
  if (limit)
    snprintf(note, sizeof note,
             ": under the address-space limit RLIMIT_AS (ulimit -v) of %llu "
             "bytes, %llu of them free; raise it",
             (unsigned long long)limit, (unsigned long long)left);
  va_list ap;
  va_start(ap, fmt);
  fatal_v(note, fmt, ap);
}

void *cp__os_reserve(size_t bytes) {
  /* Align to 2 MiB so commit chunks can be backed by transparent huge
   * pages (cp__os_advise_pages): fewer page faults when a heap is built or
   * switched, fewer TLB misses when it is walked. */
  const size_t huge = (size_t)1 << 21;
  char *p = mmap(NULL, bytes + huge, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return NULL;
  char *a = (char *)(((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1));
  if (a > p)
    munmap(p, (size_t)(a - p));
  munmap(a + bytes, (size_t)(p + huge - a));
  return a;
}

void *cp__os_reserve_at(uintptr_t addr, size_t bytes) {
  /* MAP_FIXED_NOREPLACE fails with EEXIST where anything is mapped; a
   * kernel older than 4.17 ignores the flag and may place the mapping
   * elsewhere, which counts as a failure too. */
  void *want = (void *)addr;
  char *p = mmap(want, bytes, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
                     MAP_FIXED_NOREPLACE, -1, 0);
  if (p == MAP_FAILED)
    return NULL;
  if ((void *)p != want) {
    munmap(p, bytes);
    return NULL;
  }
  return p;
}

/* The unmapped range [g0, g1) clipped to [lo, hi), aligned, above the brk
 * heap's room: the new best if it is larger. */
static void consider(uintptr_t g0, uintptr_t g1, uintptr_t lo, uintptr_t hi,
                     uintptr_t brk0, uintptr_t brk_room, uintptr_t align,
                     uintptr_t *best, size_t *best_bytes) {
  if (brk0 >= g0 && brk0 < g1)
    g0 = brk0 + brk_room;
  if (g0 < lo)
    g0 = lo;
  if (g1 > hi)
    g1 = hi;
  g0 = (g0 + align - 1) & ~(align - 1);
  if (g1 > g0 && g1 - g0 > *best_bytes) {
    *best = g0;
    *best_bytes = g1 - g0;
  }
}

bool cp__os_largest_gap(uintptr_t lo, uintptr_t hi, uintptr_t *start,
                        size_t *bytes) {
  const uintptr_t align = (uintptr_t)1 << CP_COMMIT_SHIFT;
  /* The brk heap grows up from the program break into whatever gap holds
   * it: leave it a GiB (an executable linked at a fixed address has it low;
   * glibc falls back to mmap when it cannot grow). */
  const uintptr_t brk_room = (uintptr_t)1 << 30;
  uintptr_t brk0 = (uintptr_t)sbrk(0);
  int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  /* Lines are "start-end perms offset dev inode [path]", in address order;
   * read in blocks, a line at a time. */
  char buf[4096];
  size_t have = 0;
  uintptr_t prev_end = 0, best = 0;
  size_t best_bytes = 0;
  bool eof = false;
  for (;;) {
    char *nl = memchr(buf, '\n', have);
    if (!nl) {
      if (eof || have == sizeof buf)
        break;
      ssize_t n = read(fd, buf + have, sizeof buf - have);
      if (n <= 0)
        eof = true;
      else
        have += (size_t)n;
      continue;
    }
    *nl = 0;
    char *end;
    uintptr_t a = strtoull(buf, &end, 16);
    uintptr_t b = *end == '-' ? strtoull(end + 1, NULL, 16) : a;
    /* The gap before this mapping, clipped to [lo, hi). */
    consider(prev_end, a, lo, hi, brk0, brk_room, align, &best, &best_bytes);
    prev_end = b;
    size_t used = (size_t)(nl + 1 - buf);
    memmove(buf, nl + 1, have - used);
    have -= used;
  }
  close(fd);
  consider(prev_end, UINTPTR_MAX, lo, hi, brk0, brk_room, align, &best,
           &best_bytes); /* above the last mapping */
  *start = best;
  *bytes = best_bytes;
  return best_bytes != 0;
}

uint64_t cp__os_address_space_free(uint64_t *limit) {
  struct rlimit rl;
  *limit = 0;
  if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
    return UINT64_MAX;
  *limit = rl.rlim_cur;
  /* The first field of /proc/self/statm is the address space in use, in
   * pages: what counts against the limit.  Without /proc, assume none. */
  uint64_t used = 0;
  int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    char buf[64];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n > 0) {
      buf[n] = 0;
      used = strtoull(buf, NULL, 10) * (uint64_t)sysconf(_SC_PAGESIZE);
    }
  }
  return used < rl.rlim_cur ? rl.rlim_cur - used : 0;
}

bool cp__os_commit(void *p, size_t bytes) {
  return mprotect(p, bytes, PROT_READ | PROT_WRITE) == 0;
}

void cp__os_advise_pages(void *p, size_t bytes, bool huge) {
  /* Advice only: a kernel without THP refuses it, and the memory works
   * the same on 4 KiB pages. */
  (void)madvise(p, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
}

bool cp__os_decommit(void *p, size_t bytes) {
  /* The pages read as zero afterwards and are no longer resident -- unless
   * they are locked (mlock, mlockall): then the kernel refuses (EINVAL)
   * and they keep their contents. */
  return madvise(p, bytes, MADV_DONTNEED) == 0;
}

bool cp__os_populate(void *p, size_t bytes) {
  /* One call faults in the whole range (Linux 5.14); an older kernel says
   * EINVAL and the first writes fault the pages in instead. */
#ifdef MADV_POPULATE_WRITE
  return madvise(p, bytes, MADV_POPULATE_WRITE) == 0;
#else
  (void)p, (void)bytes;
  return false;
#endif
}

bool cp__os_move(void *from, size_t bytes, void *to) {
  /* mremap moves the page-table entries (whole page-middle entries for
   * huge pages): the pages change address without being copied, zeroed or
   * faulted in again.  The range at `to` is replaced; `from` becomes a
   * hole, reserved again at once so nothing else is mapped into a range
   * the runtime still owns. */
  void *r = mremap(from, bytes, bytes, MREMAP_MAYMOVE | MREMAP_FIXED, to);
  if (r == MAP_FAILED)
    return false;
  /* Another thread's mmap may have taken the hole in between: going on
   * would hand its memory out as the arena's. */
  if (!cp__os_reserve_at((uintptr_t)from, bytes))
    cp__fatal("cannot reserve the range %p-%p of the heap again after moving "
              "its pages away: another mapping took it in between (an mmap "
              "by address into the arena's range)",
              from, (void *)((char *)from + bytes));
  return true;
}

void cp__os_release(void *p, size_t bytes) {
  if (p)
    munmap(p, bytes);
}

void cp__os_guard(void *p, size_t bytes) {
  /* MAP_FIXED replaces the caller's own mapping in one step: its pages
   * are freed and no other mapping can take the range in between. */
  if (p && mmap(p, bytes, PROT_NONE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1,
                0) == MAP_FAILED)
    munmap(p, bytes);
}

/* LeakSanitizer scans globals, stacks and malloc'd blocks, not mappings:
 * metadata mapped here (the type registry, page and slab maps) is the
 * only reference to blocks from malloc (copy programs, slab headers), so
 * in a program built with -fsanitize=address every such block was
 * reported as leaked at exit.  The mappings are registered as root
 * regions where the program has LeakSanitizer (weak: null without it). */
extern void __lsan_register_root_region(const void *p, size_t size)
    __attribute__((weak));
extern void __lsan_unregister_root_region(const void *p, size_t size)
    __attribute__((weak));

void *cp__os_alloc_zeroed(size_t bytes) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return NULL;
  if (__lsan_register_root_region)
    __lsan_register_root_region(p, bytes);
  return p;
}

void cp__os_free(void *p, size_t bytes) {
  if (!p)
    return;
  if (__lsan_unregister_root_region)
    __lsan_unregister_root_region(p, bytes);
  munmap(p, bytes);
}

double cp__now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

