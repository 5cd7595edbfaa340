/*
 * compactptr-listbench - the list benchmark of the 32-bit-pointer report
 * (shared/background.md): a circular singly linked list traversed in
 * compact mode, switched, and traversed again in wide mode.
 *
 * The list nodes are { int payload; node *next; }: 8 bytes compact (one
 * handle), 16 bytes wide.  Layouts and the descriptor are written by hand,
 * as the plugin would generate them.  Traversals run the same loop over
 * each layout; the checksum of the traversals before and after the switch
 * must match, or the program exits 1.
 */
#define COMPACTPTR_RUNTIME 1
#include <compactptr.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct wnode { int payload; struct wnode *next; };
struct cnode { int payload; cp_handle_t next; };

CP_DEFINE_MODULE();
extern cp_type_desc_t node_desc;
static const cp_field_desc_t node_fields[] = {
    {"payload", 0, 0, CP_FIELD_BYTES, 1, 4, NULL},
    {"next", 4, 8, CP_FIELD_HANDLE, 1, 0, &node_desc},
};
cp_type_desc_t node_desc = {CP_ABI_VERSION, CP_GRANULE_SHIFT, CP_BUILD_SWITCHABLE,
                            "node", sizeof(struct cnode), 4, sizeof(struct wnode), 8,
                            2, node_fields, &cp__module, NULL};
CP_REGISTER_TYPE(node_desc);

static void *head; /* the root */
static cp_root_desc_t head_root = {&head, CP_ROOT_POINTER, 1, &node_desc, "head"};
CP_REGISTER_ROOT(head_root);

/* CLOCK_MONOTONIC, or with --clock cpu the thread's CPU time, so that on a
 * shared machine the time spent waiting for a CPU is not counted. */
static clockid_t clock_id = CLOCK_MONOTONIC;

static double now(void) {
  struct timespec ts;
  clock_gettime(clock_id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Each traversal times every pass on its own: *total gets the sum, *best
 * the fastest pass (the one least disturbed by other processes). */
static uint64_t traverse_compact(long nodes, int passes, double *total,
                                 double *best) {
  uint64_t sum = 0;
  *total = 0, *best = 1e300;
  for (int p = 0; p < passes; p++) {
    double t0 = now();
    const struct cnode *n = head;
    for (long i = 0; i < nodes; i++) {
      sum += (uint64_t)n->payload;
      n = cp_decode(n->next);
    }
    double t = now() - t0;
    *total += t;
    if (t < *best)
      *best = t;
  }
  return sum;
}

static uint64_t traverse_wide(long nodes, int passes, double *total,
                              double *best) {
  uint64_t sum = 0;
  *total = 0, *best = 1e300;
  for (int p = 0; p < passes; p++) {
    double t0 = now();
    const struct wnode *n = head;
    for (long i = 0; i < nodes; i++) {
      sum += (uint64_t)n->payload;
      n = n->next;
    }
    double t = now() - t0;
    *total += t;
    if (t < *best)
      *best = t;
  }
  return sum;
}

static void usage(FILE *f) {
  fprintf(f,
"usage: compactptr-listbench [--nodes N] [--passes P] [--shuffle]\n"
"                            [--clock wall|cpu] [--json]\n"
"\n"
"Builds a circular singly linked list of N nodes (default 65536) holding an\n"
"int payload in compact mode, traverses it P times (default 100), switches\n"
"to wide mode with cp_switch_to_wide(), and traverses it P times again.\n"
"--shuffle links the nodes in a random order (fixed seed), so each step is\n"
"a cache miss once the list outgrows the caches.  Prints ns per node\n"
"visited in each mode (over all passes, and in the fastest pass), the\n"
"switch time in seconds, and both checksums.  --clock cpu times by the\n"
"thread's CPU time (CLOCK_THREAD_CPUTIME_ID) instead of wall time\n"
"(CLOCK_MONOTONIC), for a machine shared with other work.\n"
"--json prints one object: nodes, passes, shuffle, clock,\n"
"compact_ns_per_node, wide_ns_per_node, compact_best_ns_per_node,\n"
"wide_best_ns_per_node, switch_seconds, checksum_compact, checksum_wide.\n"
"Exit status: 0; 1 if the checksums differ; 2 on bad arguments.\n");
}

static long parse_count(const char *opt, const char *s, long lo, long hi) {
  char *end;
  long v = strtol(s, &end, 10);
  if (*s == 0 || *end || v < lo || v > hi) {
    fprintf(stderr, "compactptr-listbench: %s takes a number from %ld to %ld, "
            "not '%s'\n", opt, lo, hi, s);
    exit(2);
  }
  return v;
}

int main(int argc, char **argv) {
  long nodes = 65536;
  int passes = 100, shuffle = 0, json = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--nodes") && i + 1 < argc)
      /* The compact list must fit the arena: 8-byte nodes in half the
       * reach (the build would switch, and order[] is not a root). */
      nodes = parse_count("--nodes", argv[++i], 1, (long)(CP_ARENA_REACH / 16));
    else if (!strcmp(argv[i], "--passes") && i + 1 < argc)
      passes = (int)parse_count("--passes", argv[++i], 1, 1000000);
    else if (!strcmp(argv[i], "--shuffle"))
      shuffle = 1;
    else if (!strcmp(argv[i], "--clock") && i + 1 < argc) {
      const char *c = argv[++i];
      if (!strcmp(c, "cpu"))
        clock_id = CLOCK_THREAD_CPUTIME_ID;
      else if (!strcmp(c, "wall"))
        clock_id = CLOCK_MONOTONIC;
      else {
        fprintf(stderr, "compactptr-listbench: --clock takes wall or cpu, "
                "not '%s'\n", c);
        return 2;
      }
    } else if (!strcmp(argv[i], "--json"))
      json = 1;
    else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout);
      return 0;
    } else if (i + 1 == argc && (!strcmp(argv[i], "--nodes") ||
                                 !strcmp(argv[i], "--passes") ||
                                 !strcmp(argv[i], "--clock"))) {
      fprintf(stderr, "compactptr-listbench: %s needs a value\n", argv[i]);
      return 2;
    } else {
      fprintf(stderr, "compactptr-listbench: unknown argument '%s'\n", argv[i]);
      usage(stderr);
      return 2;
    }
  }

  /* Allocate in address order; link in allocation or shuffled order. */
  struct cnode **order = malloc((size_t)nodes * sizeof *order);
  if (!order) {
    fprintf(stderr, "compactptr-listbench: out of memory\n");
    return 1;
  }
  for (long i = 0; i < nodes; i++) {
    order[i] = cp_alloc(&node_desc);
    order[i]->payload = (int)(i * 2654435761u % 1000);
  }
  if (shuffle) {
    uint64_t s = 0x2545F4914F6CDD1Dull;
    for (long i = nodes - 1; i > 0; i--) {
      s ^= s << 13, s ^= s >> 7, s ^= s << 17;
      long j = (long)(s % (uint64_t)(i + 1));
      struct cnode *t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
  }
  for (long i = 0; i < nodes; i++)
    order[i]->next = cp_encode(order[(i + 1) % nodes]);
  head = order[0];
  free(order);

  double ct, cb, wt, wb, unused;
  traverse_compact(nodes, 1, &unused, &unused); /* warm */
  uint64_t c = traverse_compact(nodes, passes, &ct, &cb);
  double t1 = now();
  cp_switch_to_wide();
  double t2 = now();
  traverse_wide(nodes, 1, &unused, &unused);
  uint64_t w = traverse_wide(nodes, passes, &wt, &wb);

  double visits = (double)nodes * passes;
  double cns = ct * 1e9 / visits, wns = wt * 1e9 / visits;
  double cbest = cb * 1e9 / (double)nodes, wbest = wb * 1e9 / (double)nodes;
  const char *clock_name = clock_id == CLOCK_MONOTONIC ? "wall" : "cpu";
  if (json) {
    printf("{\"nodes\": %ld, \"passes\": %d, \"shuffle\": %s, "
           "\"clock\": \"%s\", "
           "\"compact_ns_per_node\": %.4f, \"wide_ns_per_node\": %.4f, "
           "\"compact_best_ns_per_node\": %.4f, "
           "\"wide_best_ns_per_node\": %.4f, "
           "\"switch_seconds\": %.6f, \"checksum_compact\": %llu, "
           "\"checksum_wide\": %llu}\n",
           nodes, passes, shuffle ? "true" : "false", clock_name, cns, wns,
           cbest, wbest, t2 - t1, (unsigned long long)c,
           (unsigned long long)w);
  } else {
    printf("list of %ld nodes (%s order), %d passes, %s clock\n", nodes,
           shuffle ? "shuffled" : "allocation", passes, clock_name);
    printf("  compact mode: %8.3f ns/node   (fastest pass %.3f; node %zu "
           "bytes)\n", cns, cbest, sizeof(struct cnode));
    printf("  switch:       %8.3f ms        (%.1f ns/node)\n", (t2 - t1) * 1e3,
           (t2 - t1) * 1e9 / (double)nodes);
    printf("  wide mode:    %8.3f ns/node   (fastest pass %.3f; node %zu "
           "bytes)\n", wns, wbest, sizeof(struct wnode));
    printf("  wide/compact: %8.2fx\n", wns / cns);
    printf("  checksums:    %llu %s %llu\n", (unsigned long long)c,
           c == w ? "==" : "!=", (unsigned long long)w);
  }
  return c == w ? 0 : 1;
}
