/*
 * coldwarm.c - `compactptr-membench coldwarm`: the cost of one operation
 * with its code and data in the caches (warm) and evicted (cold), timed
 * between serialised TSC reads, after the method of the interrupt-cost
 * measurements in ../shared/background.md (there with wbinvd; here with
 * clflush, which user space may run).
 *
 * The operations on the runtime (handle decode, allocation, a call through
 * a dispatch, a page-map lookup) come from coldwarm_runtime.c; two native
 * controls (a call, a load) are defined here and need no runtime, so the
 * method can be checked on its own.
 *
 * Cold: before each timed repetition, every cache line of the executable's
 * mappings (its code, data and bss: the runtime is linked in statically),
 * of the malloc heap, of the operation's own data and of the lines the
 * operation names in its flush hook is clflush-ed (--evict clflush), or a
 * buffer of twice the LLC is read (--evict sweep, which also reaches
 * metadata no hook names, and the TLB).  Warm: the operation runs once
 * untimed, then timed.  Overhead: an empty operation, warm for the warm
 * figures and evicted the same way for the cold ones (the harness code
 * misses too); "net" figures subtract its median.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "membench.h"

#include <math.h>

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char coldwarm_help[] =
    "Usage: compactptr-membench coldwarm [--ops LIST] [--evict MODE] [OPTIONS]\n"
    "Cost of one operation with code and data cached (warm) vs evicted (cold),\n"
    "from serialised TSC reads around a single call.\n"
    "\n"
    "  --ops LIST      comma-separated operations (default: all available):\n"
    "                  native-call, native-load (controls, always available);\n"
    "                  decode, decode-load, alloc, dispatch, pagemap (need\n"
    "                  the compactptr runtime linked in)\n"
    "  --evict MODE    clflush (default): clflush the executable's code, data\n"
    "                  and bss, the malloc heap and the operation's own lines;\n"
    "                  sweep: read a buffer of 2 x LLC instead (also evicts\n"
    "                  runtime metadata and TLB entries)\n"
    "Default --reps 201.\n"
    "\n"
    "Output: per operation, TSC cycles warm and cold (min, median, p99),\n"
    "net medians (minus the timing overhead: an empty call, warm for warm and\n"
    "evicted the same way for cold; both reported), and cold - warm.\n"
    "Operations the build cannot run are listed as\n"
    "unavailable with the reason.\n"
    "\n";

/* ---- native controls ------------------------------------------------------ */

static volatile uint64_t native_data[8] __attribute__((aligned(64))) = {42};
static volatile uint64_t sink;

__attribute__((noinline, aligned(64))) static uint64_t native_fn(uint64_t x) {
  __asm__ __volatile__("" : "+r"(x));
  return x + 1;
}
static uint64_t (*volatile native_fp)(uint64_t) = native_fn;

static void run_call(void *ctx) {
  (void)ctx;
  sink = native_fp(1);
}
static void flush_call(void *ctx) {
  (void)ctx;
  mb_flush_range((const void *)native_fn, 256);
}
static void run_load(void *ctx) {
  (void)ctx;
  sink = native_data[0];
}
static void flush_load(void *ctx) {
  (void)ctx;
  mb_flush_range((const void *)native_data, sizeof native_data);
}
static void run_empty(void *ctx) { (void)ctx; }

/* ---- eviction ---------------------------------------------------------------- */

typedef struct range { uintptr_t lo, hi; } range_t;
static range_t flush_ranges[64];
static size_t nflush;

/** The executable's readable mappings, the anonymous mapping right after
 *  them (bss) and the malloc heap (if under 64 MiB). */
static void collect_ranges(void) {
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return;
  exe[n] = 0;
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f) return;
  char line[4600];
  uintptr_t last_end = 0;
  while (fgets(line, sizeof line, f) && nflush < 64) {
    unsigned long lo, hi;
    char perms[8], path[4600] = "";
    if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %4599[^\n]", &lo, &hi, perms, path) < 3) continue;
    char *p = path;
    while (*p == ' ') p++;
    int mine = strcmp(p, exe) == 0;
    int bss = !*p && lo == last_end && last_end;
    int heap = strcmp(p, "[heap]") == 0 && hi - lo <= (64u << 20);
    if (perms[0] == 'r' && (mine || bss || heap)) flush_ranges[nflush++] = (range_t){lo, hi};
    last_end = mine ? hi : 0;
  }
  fclose(f);
}

static void evict(int sweep, const mb_op_t *op, size_t llc) {
  if (sweep) {
    mb_sweep_caches(2 * llc);
  } else {
    for (size_t i = 0; i < nflush; i++)
      mb_flush_range((const void *)flush_ranges[i].lo, flush_ranges[i].hi - flush_ranges[i].lo);
  }
  if (op->flush) op->flush(op->ctx);
}

/* ---- driver ---------------------------------------------------------------- */

typedef struct cw_row {
  const char *name, *what;
  const char *why; /* non-NULL: unavailable */
  mb_stats_t warm, cold;
  /* Minus the overhead, and cold minus warm: NAN below *_res (mb_net). */
  double warm_net, cold_net, cost, warm_res, cold_res, cost_res;
} cw_row_t;

static mb_stats_t time_op(mb_ctx_t *c, const mb_op_t *op, int cold, int sweep, size_t llc) {
  double *t = malloc(c->reps * sizeof *t);
  for (unsigned r = 0; r < c->reps; r++) {
    op->run(op->ctx); /* state exists, code was run once */
    if (op->after) op->after(op->ctx);
    if (cold) evict(sweep, op, llc);
    uint64_t t0 = mb_tsc_begin();
    op->run(op->ctx);
    uint64_t t1 = mb_tsc_end();
    if (op->after) op->after(op->ctx);
    t[r] = (double)(t1 - t0);
  }
  mb_stats_t s = mb_stats(t, c->reps);
  free(t);
  return s;
}

int mb_cmd_coldwarm(int argc, char **argv, mb_ctx_t *c) {
  enum { O_OPS = MB_OPT_FIRST_LOCAL, O_EVICT };
  static const struct option opts[] = {MB_COMMON_LONGOPTS,
                                       {"ops", required_argument, 0, O_OPS},
                                       {"evict", required_argument, 0, O_EVICT},
                                       {0, 0, 0, 0}};
  const char *ops_arg = NULL;
  int sweep = 0, o;
  optind = 1;
  opterr = 0;
  while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
    switch (o) {
    case 'h':
      fputs(coldwarm_help, stdout);
      fputs(mb_common_help, stdout);
      return MB_EXIT_OK;
    case O_OPS: ops_arg = optarg; break;
    case O_EVICT:
      if (strcmp(optarg, "clflush") == 0) sweep = 0;
      else if (strcmp(optarg, "sweep") == 0) sweep = 1;
      else return mb_usage_error(c, "--evict: '%s' is not clflush or sweep", optarg);
      break;
    case ':': return mb_usage_error(c, "option '%s' needs a value", argv[optind - 1]);
    case '?': return mb_usage_error(c, "unknown option '%s'", argv[optind - 1]);
    default:
      if (mb_common_opt(c, o, optarg)) return MB_EXIT_USAGE;
    }
  }
  if (optind < argc) return mb_usage_error(c, "unexpected argument '%s'", argv[optind]);
  if (c->plot) return mb_usage_error(c, "--plot is supported by chase and tlb only");

  static const char *const runtime_names[] = {"decode", "decode-load", "alloc", "dispatch",
                                              "pagemap"};
  mb_op_t all[16] = {
      {"native-call", "indirect call of a small function (control)", run_call, flush_call, NULL, NULL},
      {"native-load", "load of one global (control)", run_load, flush_load, NULL, NULL}};
  size_t nall = 2;
  const char *rt_why = NULL;
  nall += mb_runtime_ops(all + 2, 14, &rt_why);

  /* Select. */
  const char *want[16];
  size_t nwant = 0;
  if (ops_arg && mb_list_opt(c, "--ops", ops_arg)) return MB_EXIT_USAGE;
  char *copy = ops_arg ? strdup(ops_arg) : NULL, *save = NULL;
  if (copy) {
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
      int known = 0;
      for (size_t i = 0; i < 2; i++) known |= strcmp(tok, all[i].name) == 0;
      for (size_t i = 0; i < sizeof runtime_names / sizeof *runtime_names; i++)
        known |= strcmp(tok, runtime_names[i]) == 0;
      if (!known || nwant == 16) {
        mb_usage_error(c, "--ops: unknown operation '%s' (expected native-call, native-load, "
                          "decode, decode-load, alloc, dispatch or pagemap)", tok);
        free(copy);
        return MB_EXIT_USAGE;
      }
      want[nwant++] = tok;
    }
    if (!nwant) {
      free(copy);
      return mb_usage_error(c, "--ops: empty list");
    }
  } else {
    want[nwant++] = "native-call";
    want[nwant++] = "native-load";
    for (size_t i = 0; i < sizeof runtime_names / sizeof *runtime_names; i++)
      want[nwant++] = runtime_names[i];
  }
  if (!c->reps) c->reps = 201;
  int rc = mb_start(c);
  if (rc) {
    free(copy);
    return rc;
  }
  collect_ranges();
  size_t llc = c->sys.reported[2] ? (size_t)c->sys.reported[2] : (32u << 20);

  mb_op_t empty = {"empty", "", run_empty, NULL, NULL, NULL};
  mb_stats_t ovh = time_op(c, &empty, 0, 0, llc);
  /* Under eviction the harness itself (the code after the TSC read, the
   * call) misses too: subtract an empty operation evicted the same way. */
  mb_stats_t ovh_cold = time_op(c, &empty, 1, sweep, llc);
  double step = c->clock.resolution > 0 ? c->clock.resolution : 1;

  cw_row_t rows[16];
  size_t n = 0;
  for (size_t w = 0; w < nwant; w++) {
    cw_row_t *r = &rows[n++];
    memset(r, 0, sizeof *r);
    r->name = want[w];
    const mb_op_t *op = NULL;
    for (size_t i = 0; i < nall; i++)
      if (strcmp(all[i].name, want[w]) == 0) op = &all[i];
    if (!op) {
      r->why = rt_why ? rt_why : "not provided by this build";
      continue;
    }
    r->what = op->what;
    mb_progress(c, "coldwarm %s", op->name);
    r->warm = time_op(c, op, 0, sweep, llc);
    r->cold = time_op(c, op, 1, sweep, llc);
    r->warm_net = mb_net(r->warm, ovh, step, &r->warm_res);
    r->cold_net = mb_net(r->cold, ovh_cold, step, &r->cold_res);
    r->cost = mb_net(r->cold, r->warm, step, &r->cost_res);
  }
  mb_progress(c, "%s", "");

  if (c->out == MB_OUT_JSON) {
    mb_json_t j;
    mb_json_init(&j, stdout, 1);
    mb_json_begin_object(&j, NULL);
    mb_json_common(&j, c);
    mb_json_string(&j, "evict", sweep ? "sweep" : "clflush");
    mb_json_number(&j, "overhead_cycles", ovh.median);
    mb_json_number(&j, "cold_overhead_cycles", ovh_cold.median);
    mb_json_begin_array(&j, "results");
    for (size_t i = 0; i < n; i++) {
      cw_row_t *r = &rows[i];
      mb_json_begin_object(&j, NULL);
      mb_json_string(&j, "op", r->name);
      mb_json_bool(&j, "available", !r->why);
      if (r->why) {
        mb_json_string(&j, "reason", r->why);
      } else {
        mb_json_string(&j, "what", r->what);
        mb_json_number(&j, "warm_cycles", r->warm_net);
        mb_json_number(&j, "cold_cycles", r->cold_net);
        mb_json_number(&j, "warm_ns", mb_ticks_to_ns(&c->clock, r->warm_net));
        mb_json_number(&j, "cold_ns", mb_ticks_to_ns(&c->clock, r->cold_net));
        mb_json_bool(&j, "warm_below_resolution", isnan(r->warm_net));
        mb_json_bool(&j, "cold_below_resolution", isnan(r->cold_net));
        mb_json_number(&j, "warm_resolution_cycles", r->warm_res);
        mb_json_number(&j, "cold_resolution_cycles", r->cold_res);
        mb_json_number(&j, "warm_raw_min", r->warm.min);
        mb_json_number(&j, "warm_raw_median", r->warm.median);
        mb_json_number(&j, "warm_raw_p99", r->warm.p99);
        mb_json_number(&j, "cold_raw_min", r->cold.min);
        mb_json_number(&j, "cold_raw_median", r->cold.median);
        mb_json_number(&j, "cold_raw_p99", r->cold.p99);
      }
      mb_json_end_object(&j);
    }
    mb_json_end_array(&j);
    mb_json_end_object(&j);
    mb_json_finish(&j);
  } else if (c->out == MB_OUT_CSV) {
    fputs("op,available,warm_cycles,cold_cycles,warm_ns,cold_ns,warm_raw_min,warm_raw_median,"
          "warm_raw_p99,cold_raw_min,cold_raw_median,cold_raw_p99,reason\n", stdout);
    for (size_t i = 0; i < n; i++) {
      cw_row_t *r = &rows[i];
      mb_csv_string(stdout, 1, r->name);
      mb_csv_int(stdout, 0, !r->why);
      if (r->why) {
        for (int k = 0; k < 10; k++) mb_csv_string(stdout, 0, NULL);
        mb_csv_string(stdout, 0, r->why);
      } else {
        double v[10] = {r->warm_net, r->cold_net, mb_ticks_to_ns(&c->clock, r->warm_net),
                        mb_ticks_to_ns(&c->clock, r->cold_net),
                        r->warm.min, r->warm.median, r->warm.p99,
                        r->cold.min, r->cold.median, r->cold.p99};
        for (int k = 0; k < 10; k++) mb_csv_number(stdout, 0, v[k]);
        mb_csv_string(stdout, 0, NULL);
      }
      mb_csv_end_row(stdout);
    }
  } else {
    mb_table_header(stdout, c);
    printf("One operation between serialised TSC reads; TSC cycles, %u reps; eviction: %s.\n"
           "Timing overhead (empty call): warm %.0f, cold %.0f cycles median, subtracted in 'net'.\n",
           c->reps, sweep ? "read 2 x LLC" : "clflush code, data, bss, heap, op lines",
           ovh.median, ovh_cold.median);
    printf("%-12s | %22s | %22s | %8s %8s %9s\n", "op", "warm min/med/p99", "cold min/med/p99",
           "warm net", "cold net", "cold-warm");
    for (size_t i = 0; i < n; i++) {
      cw_row_t *r = &rows[i];
      if (r->why) {
        printf("%-12s | unavailable: %s\n", r->name, r->why);
        continue;
      }
      char wn[32], cn[32], d[32];
      printf("%-12s | %6.0f %7.0f %7.0f | %6.0f %7.0f %7.0f | %8s %8s %9s\n", r->name,
             r->warm.min, r->warm.median, r->warm.p99, r->cold.min, r->cold.median, r->cold.p99,
             mb_fmt_net(wn, sizeof wn, r->warm_net, r->warm_res, 0),
             mb_fmt_net(cn, sizeof cn, r->cold_net, r->cold_res, 0),
             mb_fmt_net(d, sizeof d, r->cost, r->cost_res, 0));
    }
    printf("('<x': a difference of medians below what the runs resolve, x: the clock's\n"
           "step or the spread of the two timings, whichever is larger)\n");
    for (size_t i = 0; i < n; i++)
      if (!rows[i].why) printf("  %-12s %s\n", rows[i].name, rows[i].what);
  }
  free(copy);
  return MB_EXIT_OK;
}
