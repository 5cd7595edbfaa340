/*
 * compactptr-allocbench - allocator churn and memory per object, the
 * compactptr runtime against glibc malloc, jemalloc and mimalloc.
 *
 * The driver runs one child process per (allocator, workload) pair and
 * interleaves the allocators round by round (A B C D A B C D ...), so drift
 * in machine speed hits them alike; it reports the best round of each and
 * ratios to glibc.  jemalloc and mimalloc are measured by preloading their
 * Debian libraries (LD_PRELOAD) into a child that calls malloc/free.
 *
 * Workloads (per object size, 16..64 bytes):
 *   lifo    allocate 1000 objects, free them in reverse; repeat
 *   random  keep 100000 objects live; free a random one, allocate another
 * and, at 24 bytes, with threads (the allocator's scaling):
 *   lifo-Nt N threads doing lifo at once (N = 2, 4, 8)
 *   xfree   producer/consumer pairs: one thread allocates, the other frees
 *           everything it allocated (every free is a cross-thread free)
 * Memory: 2^20 live objects of 12, 20 and 24 bytes; bytes of resident
 * memory per object (peak RSS growth) for each allocator.
 */
#define _GNU_SOURCE
#define COMPACTPTR_RUNTIME 1
/* The other allocators' free must be theirs, not the runtime's
 * any-pointer free in front of it. */
#define COMPACTPTR_NO_FREE_HOOK 1
#include <compactptr.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

CP_DEFINE_MODULE();

static cp_field_desc_t blob_field = {"bytes", 0, 0, CP_FIELD_BYTES, 1, 0, NULL};
static cp_type_desc_t blob = {CP_ABI_VERSION, CP_GRANULE_SHIFT, CP_BUILD_COMPACT_ONLY,
                              "blob", 0, 4, 0, 4, 1, &blob_field, &cp__module, NULL};

static const char *const allocators[] = {"glibc", "jemalloc", "mimalloc", "compactptr"};
static const char *const preload[] = {
    NULL, "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2",
    "/usr/lib/x86_64-linux-gnu/libmimalloc.so.2", NULL};
enum { NALLOC = 4 };

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng = 88172645463325252ull;
static inline uint64_t next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static int use_cp;
static inline void *A(size_t n) {
  (void)n;
  return use_cp ? cp_alloc(&blob) : malloc(n);
}
static inline void F(void *p) {
  if (use_cp)
    cp_free(p);
  else
    free(p);
}

/* Returns operations (an allocation plus a free) per second. */
static double run_lifo(size_t size, long ops) {
  enum { BATCH = 1000 };
  void *ps[BATCH];
  double t0 = now();
  for (long done = 0; done < ops; done += BATCH) {
    for (int i = 0; i < BATCH; i++) {
      ps[i] = A(size);
      *(volatile char *)ps[i] = 1;
    }
    for (int i = BATCH; i-- > 0;)
      F(ps[i]);
  }
  return (double)ops / (now() - t0);
}

static double run_random(size_t size, long ops) {
  enum { LIVE = 100000 };
  void **ps = malloc(LIVE * sizeof *ps);
  for (int i = 0; i < LIVE; i++)
    ps[i] = A(size);
  double t0 = now();
  for (long k = 0; k < ops; k++) {
    uint32_t i = (uint32_t)(next() % LIVE);
    F(ps[i]);
    ps[i] = A(size);
    *(volatile char *)ps[i] = 1;
  }
  double r = (double)ops / (now() - t0);
  for (int i = 0; i < LIVE; i++)
    F(ps[i]);
  free(ps);
  return r;
}

/* N threads churning at once (lifo each): total operations per second. */
typedef struct mt_arg {
  size_t size;
  long ops;
} mt_arg_t;
static void *mt_worker(void *p) {
  mt_arg_t *a = p;
  run_lifo(a->size, a->ops);
  return NULL;
}
static double run_lifo_mt(size_t size, long ops, int n) {
  pthread_t th[8];
  mt_arg_t a = {size, ops / n};
  double t0 = now();
  for (int i = 0; i < n; i++)
    pthread_create(&th[i], NULL, mt_worker, &a);
  for (int i = 0; i < n; i++)
    pthread_join(th[i], NULL);
  return (double)(a.ops * n) / (now() - t0);
}

/* Producer/consumer: batches of BATCH objects go through a single-producer
 * single-consumer ring of RING slots; the consumer frees them.  Operations
 * are allocations (each also freed, by the other thread) per second. */
enum { XBATCH = 256, XRING = 64 };
typedef struct xring {
  void **slot[XRING];
  unsigned long head, tail; /* written by consumer / producer (atomics) */
  size_t size;
  long batches;
} xring_t;
static void *x_producer(void *p) {
  xring_t *r = p;
  for (long b = 0; b < r->batches; b++) {
    void **batch = malloc(XBATCH * sizeof *batch);
    for (int i = 0; i < XBATCH; i++) {
      batch[i] = A(r->size);
      *(volatile char *)batch[i] = 1;
    }
    unsigned long t = __atomic_load_n(&r->tail, __ATOMIC_RELAXED);
    while (t - __atomic_load_n(&r->head, __ATOMIC_ACQUIRE) == XRING)
      sched_yield();
    r->slot[t % XRING] = batch;
    __atomic_store_n(&r->tail, t + 1, __ATOMIC_RELEASE);
  }
  return NULL;
}
static void *x_consumer(void *p) {
  xring_t *r = p;
  for (long b = 0; b < r->batches; b++) {
    unsigned long h = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
    while (__atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) == h)
      sched_yield();
    void **batch = r->slot[h % XRING];
    __atomic_store_n(&r->head, h + 1, __ATOMIC_RELEASE);
    for (int i = 0; i < XBATCH; i++)
      F(batch[i]);
    free(batch);
  }
  return NULL;
}
static double run_xfree(size_t size, long ops) {
  static xring_t r;
  r.size = size;
  r.batches = ops / XBATCH;
  pthread_t p, c;
  double t0 = now();
  pthread_create(&p, NULL, x_producer, &r);
  pthread_create(&c, NULL, x_consumer, &r);
  pthread_join(p, NULL);
  pthread_join(c, NULL);
  return (double)(r.batches * XBATCH) / (now() - t0);
}

static long rss_kib(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

/* Bytes of peak RSS growth per object for 2^20 live objects. */
static double run_memory(size_t size, double *committed_per_byte) {
  enum { N = 1 << 20 };
  void **ps = malloc(N * sizeof *ps);
  memset(ps, 0, N * sizeof *ps);
  long before = rss_kib();
  for (int i = 0; i < N; i++) {
    ps[i] = A(size);
    memset(ps[i], 1, size);
  }
  double per = (double)(rss_kib() - before) * 1024.0 / N;
  *committed_per_byte = 0;
  if (use_cp) {
    cp_stats_t st;
    cp_get_stats(&st, NULL, 0);
    *committed_per_byte = (double)st.arena_used / ((double)N * (double)size);
  }
  return per;
}

static int child(int argc, char **argv) {
  if (argc != 6)
    return 2;
  use_cp = !strcmp(argv[2], "compactptr");
  size_t size = strtoul(argv[4], NULL, 10);
  long ops = atol(argv[5]);
  /* Compact sizes are multiples of 4 bytes and of the granule. */
  const size_t unit = CP_GRANULE > 4 ? CP_GRANULE : 4;
  blob.compact_size = (uint32_t)((size + unit - 1) & ~(unit - 1));
  blob.wide_size = blob.compact_size;
  blob_field.size = (uint32_t)size;
  double v, extra = 0;
  if (!strcmp(argv[3], "lifo"))
    v = run_lifo(size, ops);
  else if (!strcmp(argv[3], "random"))
    v = run_random(size, ops);
  else if (!strncmp(argv[3], "lifo-", 5))
    v = run_lifo_mt(size, ops, atoi(argv[3] + 5));
  else if (!strcmp(argv[3], "xfree"))
    v = run_xfree(size, ops);
  else
    v = run_memory(size, &extra);
  printf("%.6g %.6g\n", v, extra);
  return 0;
}

/* Runs one child, pinned to `cpu` unless it is negative; returns its first
 * figure, stores the second in *extra.  Returns a negative value if the
 * child failed. */
static double measure(const char *self, int a, const char *wl, size_t size,
                      long ops, int cpu, double *extra) {
  int fds[2];
  if (pipe(fds) != 0) {
    perror("compactptr-allocbench: pipe");
    exit(1);
  }
  char sz[32], nops[32];
  snprintf(sz, sizeof sz, "%zu", size);
  snprintf(nops, sizeof nops, "%ld", ops);
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    dup2(fds[1], 1);
    if (cpu >= 0) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpu, &one);
      (void)sched_setaffinity(0, sizeof one, &one);
    }
    if (preload[a])
      setenv("LD_PRELOAD", preload[a], 1);
    execl(self, self, "--child", allocators[a], wl, sz, nops, (char *)NULL);
    _exit(127);
  }
  close(fds[1]);
  char buf[128] = {0};
  ssize_t n = read(fds[0], buf, sizeof buf - 1);
  close(fds[0]);
  int status;
  waitpid(pid, &status, 0);
  if (n <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return -1;
  double v = -1;
  *extra = 0;
  sscanf(buf, "%lf %lf", &v, extra);
  return v;
}

static void usage(FILE *f) {
  fprintf(f,
"usage: compactptr-allocbench [--rounds N] [--ops N] [--json] [--no-memory]\n"
"\n"
"Allocator churn of one object size at a time, compactptr's typed slabs\n"
"against glibc malloc, jemalloc and mimalloc (Debian's libjemalloc2 and\n"
"libmimalloc2.0, preloaded into child processes; missing ones are skipped).\n"
"Workloads: lifo (1000 allocations, then frees in reverse), random\n"
"(100000 live objects, free a random one and allocate), sizes 16-64 bytes,\n"
"and, at 24 bytes, lifo-2t/4t/8t (2, 4, 8 threads doing lifo at once) and\n"
"xfree (a producer allocates, a consumer frees: cross-thread frees).\n"
"Figures: millions of operations (allocation + free) per second, best of\n"
"N interleaved rounds (default 5), and the ratio to glibc; one-thread\n"
"rows run every allocator of a round on the same core, the rounds taking\n"
"the allowed cores in turn.  Memory: bytes of resident memory per object\n"
"for 2^20 live objects of 12, 20, 24 bytes.\n"
"  --ops N      operations per round (default 4000000)\n"
"  --json       one JSON object on stdout instead of the tables\n"
"Exit status: 0, or 1 if a measurement failed, 2 on bad arguments.\n");
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--child"))
    return child(argc, argv);
  int rounds = 5, json = 0, memory = 1;
  long ops = 4000000;
  for (int i = 1; i < argc; i++) {
    char *end;
    if ((!strcmp(argv[i], "--rounds") || !strcmp(argv[i], "--ops")) &&
        i + 1 == argc) {
      fprintf(stderr, "compactptr-allocbench: %s needs a value\n", argv[i]);
      return 2;
    } else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
      errno = 0;
      long r = strtol(argv[++i], &end, 10);
      rounds = r >= 1 && r <= 100 ? (int)r : 0;
      if (*end || end == argv[i] || errno || rounds < 1) {
        fprintf(stderr, "compactptr-allocbench: --rounds takes 1 to 100\n");
        return 2;
      }
    } else if (!strcmp(argv[i], "--ops") && i + 1 < argc) {
      errno = 0;
      ops = strtol(argv[++i], &end, 10);
      if (*end || end == argv[i] || errno || ops < 1000 || ops > 10000000000L) {
        fprintf(stderr, "compactptr-allocbench: --ops takes a number from 1000 "
                "to 10000000000\n");
        return 2;
      }
    } else if (!strcmp(argv[i], "--json")) {
      json = 1;
    } else if (!strcmp(argv[i], "--no-memory")) {
      memory = 0;
    } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout);
      return 0;
    } else {
      fprintf(stderr, "compactptr-allocbench: unknown argument '%s'\n", argv[i]);
      usage(stderr);
      return 2;
    }
  }
  const char *self = "/proc/self/exe";
  char selfbuf[4096];
  ssize_t sl = readlink(self, selfbuf, sizeof selfbuf - 1);
  if (sl > 0) {
    selfbuf[sl] = 0;
    self = selfbuf;
  }
  int cpus[CPU_SETSIZE], ncpu = 0;
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
    for (int c = 0; c < CPU_SETSIZE; c++)
      if (CPU_ISSET(c, &allowed))
        cpus[ncpu++] = c;
  int have[NALLOC];
  for (int a = 0; a < NALLOC; a++)
    have[a] = !preload[a] || access(preload[a], R_OK) == 0;

  static const char *const wls[] = {"lifo",    "random",  "lifo-2t",
                                    "lifo-4t", "lifo-8t", "xfree"};
  enum { NWL = sizeof wls / sizeof wls[0] };
  static const size_t sizes[] = {16, 24, 32, 48, 64};
  int failed = 0;
  if (json)
    printf("{\"rounds\": %d, \"ops\": %ld, \"churn\": [", rounds, ops);
  else
    printf("%-7s %5s %10s %10s %10s %10s   %8s %8s\n", "work", "bytes",
           "glibc", "jemalloc", "mimalloc", "compactptr", "cp/glibc", "cp/mi");
  int first = 1;
  for (unsigned w = 0; w < NWL; w++) {
    for (unsigned z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
      if (w >= 2 && sizes[z] != 24)
        continue; /* threads: one size is enough */
      double best[NALLOC] = {0};
      for (int r = 0; r < rounds; r++)
        for (int a = 0; a < NALLOC; a++) {
          if (!have[a])
            continue;
          /* One-thread rows: every allocator of round r on the same core,
           * and the rounds go round the cores, so each allocator's best
           * comes from the same cores.  The cores of a virtual machine
           * need not run alike: on the build machine one ran these loops
           * at 0.6x the other's speed for an hour, and a best of three
           * unpinned rounds compared one allocator's fast core with
           * another's slow one. */
          int cpu = w < 2 && ncpu > 0 ? cpus[r % ncpu] : -1;
          double extra,
              v = measure(self, a, wls[w], sizes[z], ops, cpu, &extra);
          if (v < 0)
            failed = 1;
          if (v > best[a])
            best[a] = v;
        }
      if (json) {
        printf("%s\n  {\"workload\": \"%s\", \"bytes\": %zu", first ? "" : ",",
               wls[w], sizes[z]);
        for (int a = 0; a < NALLOC; a++)
          if (have[a])
            printf(", \"%s_mops\": %.3f", allocators[a], best[a] / 1e6);
        printf(", \"ratio_glibc\": %.3f, \"ratio_mimalloc\": %.3f}",
               best[3] / best[0], have[2] ? best[3] / best[2] : 0.0);
        first = 0;
      } else {
        printf("%-7s %5zu", wls[w], sizes[z]);
        for (int a = 0; a < NALLOC; a++)
          if (have[a])
            printf(" %10.1f", best[a] / 1e6);
          else
            printf(" %10s", "-");
        printf("   %7.2fx %7.2fx\n", best[3] / best[0],
               have[2] ? best[3] / best[2] : 0.0);
      }
    }
  }
  if (json)
    printf("\n], \"memory\": [");
  else if (memory)
    printf("\nresident bytes per object, 2^20 live objects (compactptr: also "
           "arena bytes held per live byte)\n%-7s %10s %10s %10s %10s %14s\n",
           "bytes", "glibc", "jemalloc", "mimalloc", "compactptr", "cp held/live");
  static const size_t msizes[] = {12, 20, 24};
  first = 1;
  for (unsigned z = 0; memory && z < 3; z++) {
    double per[NALLOC] = {0}, held = 0;
    for (int a = 0; a < NALLOC; a++) {
      if (!have[a])
        continue;
      double extra;
      per[a] = measure(self, a, "memory", msizes[z], 0, -1, &extra);
      if (per[a] < 0)
        failed = 1;
      if (a == 3)
        held = extra;
    }
    if (json) {
      printf("%s\n  {\"bytes\": %zu", first ? "" : ",", msizes[z]);
      for (int a = 0; a < NALLOC; a++)
        if (have[a])
          printf(", \"%s_rss_per_object\": %.2f", allocators[a], per[a]);
      printf(", \"compactptr_held_per_live_byte\": %.3f}", held);
      first = 0;
    } else {
      printf("%-7zu", msizes[z]);
      for (int a = 0; a < NALLOC; a++)
        if (have[a])
          printf(" %10.2f", per[a]);
        else
          printf(" %10s", "-");
      printf(" %14.3f\n", held);
    }
  }
  if (json)
    printf("\n]}\n");
  if (failed)
    fprintf(stderr, "compactptr-allocbench: a measurement failed\n");
  return failed;
}
