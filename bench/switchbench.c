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
  double t0 = now();
  cp_switch_to_wide();
  double t = now() - t0;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  cp_stats_t st;
  cp_get_stats(&st, NULL, 0);
  printf("{\"compact_bytes\": %llu, \"wide_bytes\": %llu, \"objects\": %llu, "
         "\"seconds\": %.6f, \"gib_per_second\": %.3f, "
         "\"seconds_per_gib\": %.4f, \"rss_before_kib\": %ld, "
         "\"peak_rss_kib\": %ld, \"wide_heap_kib\": %llu}\n",
         (unsigned long long)st.switch_bytes_compact,
         (unsigned long long)st.switch_bytes_wide,
         (unsigned long long)st.switch_objects, t,
         (double)st.switch_bytes_compact / t / (1u << 30),
         t / ((double)st.switch_bytes_compact / (1u << 30)), rss_before,
         ru.ru_maxrss, (unsigned long long)(st.arena_used >> 10));
  return 0;
}

static int parse_size(const char *s, uint64_t *out) {
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  int sh = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
  if (sh)
    end++;
  if (end == s || *end || v == 0 || *s == '-')
    return -1;
  *out = (uint64_t)v << sh;
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "--child")) {
    uint64_t b;
    return parse_size(argv[2], &b) ? 2 : child(b);
  }
  const char *sizes[16];
  int nsizes = 0, json = 0;
  for (int i = 1; i < argc; i++) {
    uint64_t b;
    if (!strcmp(argv[i], "--json"))
      json = 1;
    else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("usage: compactptr-switchbench [--json] [SIZE...]\n\n"
             "Builds a mixed compact heap of each SIZE (bytes, K/M/G suffix;\n"
             "default 64M 256M 1G) in a fresh process, switches it to wide\n"
             "mode, and reports seconds, GiB of compact heap per second,\n"
             "seconds per GiB (linear growth means a flat column) and peak\n"
             "resident memory against the wide heap's size.\n"
             "Needs about 3x SIZE of memory.  Exit status 0, 1 if a run\n"
             "failed, 2 on bad arguments.\n");
      return 0;
    } else if (parse_size(argv[i], &b) == 0 && nsizes < 16)
      sizes[nsizes++] = argv[i];
    else {
      fprintf(stderr, "compactptr-switchbench: bad argument '%s'\n", argv[i]);
      return 2;
    }
  }
  if (!nsizes) {
    sizes[0] = "64M", sizes[1] = "256M", sizes[2] = "1G";
    nsizes = 3;
  }
  char self[4096];
  ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
  if (sl <= 0)
    return 1;
  self[sl] = 0;
  if (json)
    printf("{\"runs\": [\n");
  else
    printf("%8s %12s %10s %9s %9s %10s %14s\n", "heap", "objects", "switch s",
           "GiB/s", "s/GiB", "wide MiB", "peak RSS/wide");
  int failed = 0;
  for (int i = 0; i < nsizes; i++) {
    int fds[2];
    if (pipe(fds))
      return 1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
      dup2(fds[1], 1);
      close(fds[0]);
      execl(self, self, "--child", sizes[i], (char *)NULL);
      _exit(127);
    }
    close(fds[1]);
    char buf[1024] = {0};
    ssize_t n = 0, r;
    while ((r = read(fds[0], buf + n, sizeof buf - 1 - (size_t)n)) > 0)
      n += r;
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) || n <= 0) {
      fprintf(stderr, "compactptr-switchbench: the %s run failed\n", sizes[i]);
      failed = 1;
      continue;
    }
    if (json) {
      printf("%s  %s", i ? ",\n" : "", strtok(buf, "\n"));
      continue;
    }
    unsigned long long cb, wb, obj, wk;
    double s, gs, spg;
    long rb, pk;
    sscanf(buf, "{\"compact_bytes\": %llu, \"wide_bytes\": %llu, \"objects\": "
           "%llu, \"seconds\": %lf, \"gib_per_second\": %lf, "
           "\"seconds_per_gib\": %lf, \"rss_before_kib\": %ld, "
           "\"peak_rss_kib\": %ld, \"wide_heap_kib\": %llu}",
           &cb, &wb, &obj, &s, &gs, &spg, &rb, &pk, &wk);
    printf("%8s %12llu %10.4f %9.2f %9.3f %10.1f %13.2fx\n", sizes[i], obj, s,
           gs, spg, (double)wk / 1024, (double)pk / (double)wk);
  }
  if (json)
    printf("\n]}\n");
  return failed;
}
