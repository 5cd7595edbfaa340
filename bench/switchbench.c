/*
 * compactptr-switchbench - throughput of the switch on large mixed heaps.
 *
 * For each heap size (default 64M, 256M, 1G of compact heap) a fresh child
 * process builds a heap of four hand-described types -- list nodes (12
 * bytes compact), tree nodes (24), graph nodes with four handles (24) and
 * arrays of 64 list nodes -- linked at random, switches, and reports the
 * switch time, GiB of compact heap per second, seconds per GiB, and the
 * peak resident memory of the switch against the wide heap's size.
 */
#define COMPACTPTR_RUNTIME 1
#include <compactptr.h>

#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct c_node {
  int key;
  cp_handle_t next, prev;
#if CP_GRANULE_SHIFT == 3
  uint32_t pad; /* compact sizes are multiples of the granule */
#endif
};
struct w_node { int key; struct w_node *next, *prev; };
struct c_tree { long val; cp_handle_t left, right, parent; int tag; };
struct w_tree { long val; struct w_tree *left, *right, *parent; int tag; };
struct c_graph { int id; cp_handle_t kids[4]; short deg; };
struct w_graph { int id; struct w_graph *kids[4]; short deg; };

CP_DEFINE_MODULE();
extern cp_type_desc_t node_d, tree_d, graph_d;
#define F(n, ct, wt, f, k, c, s, t) {n, __builtin_offsetof(ct, f), __builtin_offsetof(wt, f), k, c, s, t}
static const cp_field_desc_t node_f[] = {
    F("key", struct c_node, struct w_node, key, CP_FIELD_BYTES, 1, 4, NULL),
    F("next", struct c_node, struct w_node, next, CP_FIELD_HANDLE, 1, 0, &node_d),
    F("prev", struct c_node, struct w_node, prev, CP_FIELD_HANDLE, 1, 0, &node_d)};
static const cp_field_desc_t tree_f[] = {
    F("val", struct c_tree, struct w_tree, val, CP_FIELD_BYTES, 1, 8, NULL),
    F("left", struct c_tree, struct w_tree, left, CP_FIELD_HANDLE, 1, 0, &tree_d),
    F("right", struct c_tree, struct w_tree, right, CP_FIELD_HANDLE, 1, 0, &tree_d),
    F("parent", struct c_tree, struct w_tree, parent, CP_FIELD_HANDLE, 1, 0, &tree_d),
    F("tag", struct c_tree, struct w_tree, tag, CP_FIELD_BYTES, 1, 4, NULL)};
static const cp_field_desc_t graph_f[] = {
    F("id", struct c_graph, struct w_graph, id, CP_FIELD_BYTES, 1, 4, NULL),
    F("kids", struct c_graph, struct w_graph, kids, CP_FIELD_HANDLE, 4, 0, &graph_d),
    F("deg", struct c_graph, struct w_graph, deg, CP_FIELD_BYTES, 1, 2, NULL)};
#define D(v, n, ct, wt, f)                                                     \
  cp_type_desc_t v = {CP_ABI_VERSION, CP_GRANULE_SHIFT, CP_BUILD_SWITCHABLE, n, \
                      sizeof(ct), _Alignof(ct), sizeof(wt), _Alignof(wt),      \
                      sizeof f / sizeof f[0], f, &cp__module, NULL}
D(node_d, "node", struct c_node, struct w_node, node_f);
D(tree_d, "tree", struct c_tree, struct w_tree, tree_f);
D(graph_d, "graph", struct c_graph, struct w_graph, graph_f);
CP_REGISTER_TYPE(node_d);
CP_REGISTER_TYPE(tree_d);
CP_REGISTER_TYPE(graph_d);

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
static uint64_t rs = 0x9E3779B97F4A7C15ull;
static inline uint32_t rnd(uint32_t n) {
  rs ^= rs << 13, rs ^= rs >> 7, rs ^= rs << 17;
  return (uint32_t)((rs >> 32) % n);
}
static long rss_now_kib(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long pages = 0, res = 0;
  if (f) {
    if (fscanf(f, "%ld %ld", &pages, &res) != 2)
      res = 0;
    fclose(f);
  }
  return res * (sysconf(_SC_PAGESIZE) / 1024);
}

/* CPU time of the process (every thread, user and system), in seconds. */
static double cpu_seconds(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

/* The kernel's peak resident set (VmHWM), in KiB; -1 if unknown. */
static long peak_rss_kib(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kib = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
      break;
  if (f)
    fclose(f);
  return kib;
}

/* Resets the peak to the current resident set (Linux 4.0: writing 5 to
 * clear_refs), so VmHWM afterwards is the peak of what follows. */
static int reset_peak_rss(void) {
  FILE *f = fopen("/proc/self/clear_refs", "w");
  if (!f)
    return -1;
  int ok = fputs("5", f) >= 0;
  return fclose(f) == 0 && ok ? 0 : -1;
}

/* Builds about `bytes` of compact heap, switches, prints one JSON line. */
static int child(uint64_t bytes) {
  /* A window of recent objects per type to link to; kept in root arrays so
   * the switch translates them too. */
  enum { WIN = 4096 };
  void **win[3];
  for (int k = 0; k < 3; k++)
    win[k] = cp_root_array_alloc(WIN);
  uint64_t built = 0, n = 0;
  while (built < bytes) {
    uint32_t r = rnd(100);
    if (r < 40) {
      struct c_node *p = cp_alloc(&node_d);
      p->key = (int)n;
      p->next = cp_encode(win[0][rnd(WIN)]);
      p->prev = cp_encode(win[0][rnd(WIN)]);
      win[0][rnd(WIN)] = p;
      built += sizeof *p;
    } else if (r < 70) {
      struct c_tree *p = cp_alloc(&tree_d);
      p->val = (long)n;
      p->left = cp_encode(win[1][rnd(WIN)]);
      p->right = cp_encode(win[1][rnd(WIN)]);
      p->parent = cp_encode(win[1][rnd(WIN)]);
      win[1][rnd(WIN)] = p;
      built += sizeof *p;
    } else if (r < 99) {
      struct c_graph *p = cp_alloc(&graph_d);
      p->id = (int)n;
      for (int k = 0; k < 4; k++)
        p->kids[k] = cp_encode(win[2][rnd(WIN)]);
      win[2][rnd(WIN)] = p;
      built += sizeof *p;
    } else {
      struct c_node *a = cp_alloc_array(&node_d, 64);
      for (int k = 0; k < 64; k++) {
        a[k].key = k;
        a[k].next = cp_encode(k < 63 ? &a[k + 1] : win[0][rnd(WIN)]);
      }
      win[0][rnd(WIN)] = &a[rnd(64)]; /* interior pointer into the array */
      built += 64 * sizeof *a;
    }
    n++;
  }
  long rss_before = rss_now_kib();
  /* The peak across the switch alone: the kernel's high-water mark, reset
   * just before it (else the peak of the whole run, from getrusage). */
  int exact = reset_peak_rss() == 0;
  double c0 = cpu_seconds(), t0 = now();
  cp_switch_to_wide();
  double t = now() - t0, cpu = cpu_seconds() - c0;
  long peak = exact ? peak_rss_kib() : -1;
  if (peak < 0) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    peak = ru.ru_maxrss;
  }
  cp_stats_t st;
  cp_get_stats(&st, NULL, 0);
  printf("{\"compact_bytes\": %llu, \"wide_bytes\": %llu, \"objects\": %llu, "
         "\"seconds\": %.6f, \"gib_per_second\": %.3f, "
         "\"seconds_per_gib\": %.4f, \"rss_before_kib\": %ld, "
         "\"peak_rss_kib\": %ld, \"wide_heap_kib\": %llu, "
         "\"cpu_seconds\": %.6f}\n",
         (unsigned long long)st.switch_bytes_compact,
         (unsigned long long)st.switch_bytes_wide,
         (unsigned long long)st.switch_objects, t,
         (double)st.switch_bytes_compact / t / (1u << 30),
         t / ((double)st.switch_bytes_compact / (1u << 30)), rss_before,
         peak, (unsigned long long)(st.arena_used >> 10), cpu);
  return 0;
}

/* SIZE: bytes with a K, M or G suffix, from 1 byte to MAXBYTES. */
#define MAXBYTES ((uint64_t)256 << 30)
static int parse_size(const char *s, uint64_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  int sh = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
  if (sh)
    end++;
  if (end == s || *end || v == 0 || *s == '-' || errno == ERANGE ||
      v > (MAXBYTES >> sh))
    return -1;
  *out = (uint64_t)v << sh;
  return 0;
}

/* A count from lo to hi, or -1. */
static long parse_count(const char *s, long lo, long hi) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  return end == s || *end || errno == ERANGE || v < lo || v > hi ? -1 : v;
}

/* One child run: builds `size`, switches with `threads` copy threads (0:
 * the runtime's default) and leaves its JSON line in out. */
static int run_child(const char *self, const char *size, int threads,
                     char *out, size_t cap) {
  int fds[2];
  if (pipe(fds))
    return -1;
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    if (threads > 0) {
      char v[16];
      snprintf(v, sizeof v, "%d", threads);
      setenv("COMPACTPTR_SWITCH_THREADS", v, 1);
    }
    execl(self, self, "--child", size, (char *)NULL);
    _exit(127);
  }
  close(fds[1]);
  size_t n = 0;
  ssize_t r;
  memset(out, 0, cap);
  while ((r = read(fds[0], out + n, cap - 1 - n)) > 0)
    n += (size_t)r;
  close(fds[0]);
  int status;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) || n == 0)
    return -1;
  char *nl = strchr(out, '\n');
  if (nl)
    *nl = 0;
  return 0;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

enum { MAXSIZES = 8, MAXTHREADS = 4, MAXRUNS = 32 };

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "--child")) {
    uint64_t b;
    return parse_size(argv[2], &b) ? 2 : child(b);
  }
  const char *sizes[MAXSIZES];
  int nsizes = 0, json = 0, runs = 1, threads[MAXTHREADS] = {0}, nthreads = 0;
  for (int i = 1; i < argc; i++) {
    uint64_t b;
    if (!strcmp(argv[i], "--json")) {
      json = 1;
    } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("usage: compactptr-switchbench [--json] [--runs N] [--threads N,M...] [SIZE...]\n\n"
             "Builds a mixed compact heap of each SIZE (bytes, K/M/G suffix;\n"
             "default 64M 256M 1G) in a fresh process, switches it to wide\n"
             "mode, and reports seconds, GiB of compact heap per second,\n"
             "seconds per GiB (linear growth means a flat column), the CPU\n"
             "time of the switch (every thread, user and system: on a busy\n"
             "machine, what it cost rather than how long it waited) and the\n"
             "peak resident memory during the switch (VmHWM, reset just\n"
             "before it) against the wide heap's size.\n"
             "--threads N,M  copy threads (COMPACTPTR_SWITCH_THREADS) to\n"
             "               compare, each size run with each, one after the\n"
             "               other (default: the runtime's default)\n"
             "--runs N       repeat the whole set N times (at most %d) and\n"
             "               print the median per size and thread count, and\n"
             "               the median ratio of each thread count's speed\n"
             "               to the first one's, run by run\n"
             "Needs about 3x SIZE of memory.  Exit status 0, 1 if a run\n"
             "failed, 2 on bad arguments.\n", MAXRUNS);
      return 0;
    } else if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
      runs = (int)parse_count(argv[++i], 1, MAXRUNS);
      if (runs < 1) {
        fprintf(stderr, "compactptr-switchbench: --runs takes 1 to %d\n", MAXRUNS);
        return 2;
      }
    } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
      const char *list = argv[++i];
      size_t len = strlen(list);
      if (!len || list[0] == ',' || list[len - 1] == ',' || strstr(list, ",,")) {
        fprintf(stderr, "compactptr-switchbench: bad --threads '%s' (counts "
                "from 1 to 64, separated by commas)\n", list);
        return 2;
      }
      for (char *t = strtok(argv[i], ","); t; t = strtok(NULL, ",")) {
        int n = (int)parse_count(t, 1, 64);
        if (n < 1 || nthreads == MAXTHREADS) {
          fprintf(stderr, "compactptr-switchbench: bad --threads '%s' (1 to 64, at most %d counts)\n",
                  t, MAXTHREADS);
          return 2;
        }
        threads[nthreads++] = n;
      }
    } else if (parse_size(argv[i], &b) == 0 && nsizes < MAXSIZES) {
      sizes[nsizes++] = argv[i];
    } else if (argv[i][0] >= '0' && argv[i][0] <= '9') {
      fprintf(stderr, "compactptr-switchbench: bad SIZE '%s' (bytes with a "
              "K, M or G suffix, 1 to 256G; at most %d sizes)\n", argv[i],
              MAXSIZES);
      return 2;
    } else if (argv[i][0] == '-' && i + 1 == argc &&
               (!strcmp(argv[i], "--runs") || !strcmp(argv[i], "--threads"))) {
      fprintf(stderr, "compactptr-switchbench: %s needs a value\n", argv[i]);
      return 2;
    } else {
      fprintf(stderr, "compactptr-switchbench: bad argument '%s'\n", argv[i]);
      return 2;
    }
  }
  if (!nsizes) {
    sizes[0] = "64M", sizes[1] = "256M", sizes[2] = "1G";
    nsizes = 3;
  }
  /* A heap the compact arena cannot hold would be built for seconds and
   * then stop at the runtime's exhaustion: refuse it now.  Slabs hold a
   * little more than the objects (slot rounding, slabs partly full), so
   * SIZE may be 15/16 of what the arena hands out. */
  cp_stats_t st;
  cp_get_stats(&st, NULL, 0);
  for (int i = 0; i < nsizes; i++) {
    uint64_t b;
    if (parse_size(sizes[i], &b) == 0 && b > st.arena_reach / 16 * 15) {
      fprintf(stderr, "compactptr-switchbench: SIZE '%s' does not fit the "
              "compact arena (%llu bytes; at most %lluM here)\n", sizes[i],
              (unsigned long long)st.arena_reach,
              (unsigned long long)(st.arena_reach / 16 * 15 >> 20));
      return 2;
    }
  }
  if (!nthreads)
    nthreads = 1; /* threads[0] == 0: the runtime's default */
  char self[4096];
  ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
  if (sl <= 0)
    return 1;
  self[sl] = 0;
  static double gibs[MAXSIZES][MAXTHREADS][MAXRUNS], peaks[MAXSIZES][MAXTHREADS][MAXRUNS],
      cpus[MAXSIZES][MAXTHREADS][MAXRUNS];
  int got[MAXSIZES][MAXTHREADS] = {{0}};
  if (json)
    printf("{\"runs\": [\n");
  else
    printf("%4s %6s %7s %10s %8s %7s %7s %7s %9s %9s %13s\n", "run", "heap",
           "threads", "objects", "switch s", "GiB/s", "s/GiB", "CPU s",
           "GiB/CPU-s", "wide MiB", "peak RSS/wide");
  int failed = 0, first = 1;
  for (int r = 0; r < runs; r++)
    for (int i = 0; i < nsizes; i++)
      for (int k = 0; k < nthreads; k++) {
        char buf[1024];
        if (run_child(self, sizes[i], threads[k], buf, sizeof buf)) {
          fprintf(stderr, "compactptr-switchbench: the %s run failed\n", sizes[i]);
          failed = 1;
          continue;
        }
        unsigned long long cb, wb, obj, wk;
        double sec, gs, spg, cpu;
        long rb, pk;
        if (sscanf(buf, "{\"compact_bytes\": %llu, \"wide_bytes\": %llu, \"objects\": "
                   "%llu, \"seconds\": %lf, \"gib_per_second\": %lf, "
                   "\"seconds_per_gib\": %lf, \"rss_before_kib\": %ld, "
                   "\"peak_rss_kib\": %ld, \"wide_heap_kib\": %llu, "
                   "\"cpu_seconds\": %lf}",
                   &cb, &wb, &obj, &sec, &gs, &spg, &rb, &pk, &wk, &cpu) != 10) {
          fprintf(stderr, "compactptr-switchbench: the %s run printed '%s'\n",
                  sizes[i], buf);
          failed = 1;
          continue;
        }
        gibs[i][k][r] = gs;
        peaks[i][k][r] = (double)pk / (double)wk;
        cpus[i][k][r] = (double)cb / cpu / (1u << 30);
        got[i][k]++;
        if (json) {
          printf("%s  {\"run\": %d, \"heap\": \"%s\", \"threads\": %d, \"result\": %s}",
                 first ? "" : ",\n", r + 1, sizes[i], threads[k], buf);
          first = 0;
          continue;
        }
        char tn[8] = "default";
        if (threads[k])
          snprintf(tn, sizeof tn, "%d", threads[k]);
        printf("%4d %6s %7s %10llu %8.4f %7.2f %7.3f %7.3f %9.2f %9.1f %12.2fx\n",
               r + 1, sizes[i], tn, obj, sec, gs, spg, cpu,
               (double)cb / cpu / (1u << 30), (double)wk / 1024,
               peaks[i][k][r]);
        fflush(stdout);
      }
  if (json) {
    printf("\n]}\n");
    return failed;
  }
  if (runs > 1 || nthreads > 1) {
    printf("\nmedians over %d runs:\n", runs);
    for (int i = 0; i < nsizes; i++)
      for (int k = 0; k < nthreads; k++) {
        if (got[i][k] != runs)
          continue;
        double g[MAXRUNS], p[MAXRUNS], c[MAXRUNS], ratio[MAXRUNS];
        memcpy(g, gibs[i][k], sizeof g);
        memcpy(p, peaks[i][k], sizeof p);
        memcpy(c, cpus[i][k], sizeof c);
        printf("  %6s threads %-7d %6.2f GiB/s (min %.2f, max %.2f), %.2f GiB/CPU-s, peak RSS/wide %.2fx (max %.2fx)",
               sizes[i], threads[k], median(g, runs), g[0], g[runs - 1],
               median(c, runs), median(p, runs), p[runs - 1]);
        if (k > 0 && got[i][0] == runs) {
          for (int r = 0; r < runs; r++)
            ratio[r] = gibs[i][k][r] / gibs[i][0][r];
          printf(", %.2fx the speed with %d", median(ratio, runs), threads[0]);
        }
        printf("\n");
      }
  }
  return failed;
}
