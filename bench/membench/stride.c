/*
 * stride.c - `compactptr-membench stride`: one buffer, every byte touched
 * once per pass, in three orders (the "piggy" demonstration of
 * ../shared/background.md, without the swapping):
 *
 *   linear       byte 0, 1, 2, ... of the buffer;
 *   page-stride  byte k of every 4 KiB page, then byte k+1 of every page;
 *   line-stride  byte k of every 64-byte line, then byte k+1.
 *
 * A touch is a volatile byte increment (load, add, store), so the compiler
 * neither vectorises nor merges touches.  The loop overhead is measured by
 * running the same loop nests without the memory access (calibration) and
 * subtracted.  Strided orders over large buffers may be sampled: passes
 * k = 0..P-1 only, with P a whole number of 64-byte line groups, which
 * repeat the same cache and TLB behaviour as the remaining passes (see
 * docs/membench.md); the report says how many bytes were touched.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "membench.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char stride_help[] =
    "Usage: compactptr-membench stride [--sizes LIST] [OPTIONS]\n"
    "Touch (increment) every byte of a buffer in linear order, page-stride\n"
    "order (byte k of every 4 KiB page, then k+1) and line-stride order (byte\n"
    "k of every 64-byte line, then k+1), for buffers inside L1d, L2 and the\n"
    "LLC and well beyond it.\n"
    "\n"
    "  --sizes LIST      comma-separated buffer sizes (default: half of L1d,\n"
    "                    L2 and LLC as the system reports them, and 4 x LLC)\n"
    "  --pages KIND      4K (default) or 2M, as in chase\n"
    "  --budget N        at most N touches per strided order and repetition\n"
    "                    (default 4194304); larger buffers touch byte offsets\n"
    "                    0..P-1 only, P a multiple of 64 (0 = always all)\n"
    "Default --reps 5.\n"
    "\n"
    "Output: per buffer and order, ns per touch (median; raw, loop overhead\n"
    "measured by the same loop without the memory access, and net = raw -\n"
    "overhead), TSC cycles per touch (net), and the ratio of each order's net\n"
    "time to linear's (ratio_to_linear: raw; net_ratio_to_linear: net, null\n"
    "where linear's net time is within noise).  A net time is never shown\n"
    "negative: below what the measurement resolves (the TSC step per touch,\n"
    "or the jitter median - min of raw and overhead, whichever is larger) it\n"
    "is shown as '<resolution' (JSON: ns_per_touch null,\n"
    "net_below_resolution true, net_resolution_ns).  Touches per repetition\n"
    "are reported: for sampled orders they are fewer than the buffer's bytes.\n"
    "\n";

/* Touch loops and their calibration twins must have the same shape: no
 * unrolling, so the calibration measures the loop the touches run in. */
#if defined(__clang__)
#define NO_UNROLL _Pragma("clang loop unroll(disable) vectorize(disable)")
#elif defined(__GNUC__)
#define NO_UNROLL _Pragma("GCC unroll 1")
#else
#define NO_UNROLL
#endif

enum { ORD_LINEAR, ORD_PAGE, ORD_LINE, NORD };
static const char *const ord_name[NORD] = {"linear", "page-stride", "line-stride"};

typedef struct srow {
  uint64_t bytes;
  const char *where;     /* "L1d", "L2", "LLC", "beyond", "" */
  int order;
  uint64_t touches, passes;
  double raw_ns, raw_min_ns, raw_p99_ns, ovh_ns, net_ns, net_cyc, ratio, raw_ratio;
  /* What a net figure can resolve, per touch: the TSC step spread over the
   * touches, or the jitter of the two medians it is the difference of,
   * whichever is larger.  A net time below it is reported as such (never
   * as a negative or near-zero number that only noise produced). */
  double res_ns, res_cyc;
  int net_below; /* net_cyc < res_cyc: net_ns and net_cyc are not reported */
} srow_t;

static __attribute__((noinline)) void touch_strided(volatile unsigned char *b,
                                                    size_t rows, size_t stride,
                                                    size_t passes) {
  for (size_t k = 0; k < passes; k++)
    NO_UNROLL for (size_t r = 0; r < rows; r++) b[r * stride + k]++;
}

static __attribute__((noinline)) void touch_linear(volatile unsigned char *b, size_t n) {
  NO_UNROLL for (size_t i = 0; i < n; i++) b[i]++;
}

/* Calibration twins: the same loops and index arithmetic, no memory. */
static __attribute__((noinline)) uint64_t calib_strided(size_t rows, size_t stride,
                                                        size_t passes) {
  uint64_t acc = rows;
  for (size_t k = 0; k < passes; k++)
    NO_UNROLL for (size_t r = 0; r < rows; r++) {
      size_t idx = r * stride + k;
      __asm__ __volatile__("" ::"r"(idx));
    }
  return acc;
}

static __attribute__((noinline)) uint64_t calib_linear(size_t n) {
  uint64_t acc = n;
  NO_UNROLL for (size_t i = 0; i < n; i++) {
    __asm__ __volatile__("" ::"r"(i));
  }
  return acc;
}

static volatile uint64_t sink;

/** One order over b: median/min/p99 ticks per rep for the access and the
 *  calibration loop. */
static void measure(mb_ctx_t *c, unsigned char *b, size_t n, int order, size_t passes,
                    srow_t *r) {
  size_t stride = order == ORD_PAGE ? MB_PAGE : MB_LINE;
  size_t rows = n / stride;
  uint64_t touches = order == ORD_LINEAR ? n : (uint64_t)rows * passes;
  unsigned reps = c->reps;
  double *t = malloc(reps * sizeof *t), *o = malloc(reps * sizeof *o);
  /* Warm-up: one untimed pass of each. */
  if (order == ORD_LINEAR) {
    touch_linear(b, n);
    sink = calib_linear(n);
  } else {
    touch_strided(b, rows, stride, passes);
    sink = calib_strided(rows, stride, passes);
  }
  for (unsigned i = 0; i < reps; i++) {
    uint64_t t0 = mb_tsc_begin();
    if (order == ORD_LINEAR)
      touch_linear(b, n);
    else
      touch_strided(b, rows, stride, passes);
    uint64_t t1 = mb_tsc_end();
    uint64_t a;
    uint64_t t2 = mb_tsc_begin();
    a = order == ORD_LINEAR ? calib_linear(n) : calib_strided(rows, stride, passes);
    uint64_t t3 = mb_tsc_end();
    sink = a;
    t[i] = (double)(t1 - t0) / (double)touches;
    o[i] = (double)(t3 - t2) / (double)touches;
  }
  mb_stats_t s = mb_stats(t, reps), so = mb_stats(o, reps);
  r->touches = touches;
  r->passes = order == ORD_LINEAR ? 1 : passes;
  r->raw_ns = mb_ticks_to_ns(&c->clock, s.median);
  r->raw_min_ns = mb_ticks_to_ns(&c->clock, s.min);
  r->raw_p99_ns = mb_ticks_to_ns(&c->clock, s.p99);
  r->ovh_ns = mb_ticks_to_ns(&c->clock, so.median);
  r->net_ns = r->raw_ns - r->ovh_ns;
  r->net_cyc = s.median - so.median;
  double step = c->clock.resolution > 0 ? c->clock.resolution : 1;
  double jitter = (s.median - s.min) + (so.median - so.min);
  r->res_cyc = step / (double)touches > jitter ? step / (double)touches : jitter;
  r->res_ns = mb_ticks_to_ns(&c->clock, r->res_cyc);
  r->net_below = !(r->net_cyc >= r->res_cyc);
  free(t);
  free(o);
}

static size_t parse_sizes(const mb_ctx_t *c, const char *arg, uint64_t *out, size_t cap,
                          int *bad) {
  *bad = 0;
  if (mb_list_opt(c, "--sizes", arg)) {
    *bad = 1;
    return 0;
  }
  char *copy = strdup(arg), *save = NULL;
  size_t n = 0;
  for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    if (n == cap) {
      mb_usage_error(c, "--sizes: at most %zu sizes", cap);
      *bad = 1;
      break;
    }
    if (mb_size_opt(c, "--sizes", tok, &out[n])) {
      *bad = 1;
      break;
    }
    if (out[n] < MB_PAGE || out[n] % MB_PAGE) {
      mb_usage_error(c, "--sizes: '%s' must be a positive multiple of 4K", tok);
      *bad = 1;
      break;
    }
    n++;
  }
  if (!n && !*bad) {
    mb_usage_error(c, "--sizes: empty list");
    *bad = 1;
  }
  free(copy);
  return n;
}

static const char *where_of(const mb_ctx_t *c, uint64_t bytes) {
  const uint64_t *r = c->sys.reported;
  if (r[0] && bytes <= r[0]) return "L1d";
  if (r[1] && bytes <= r[1]) return "L2";
  if (r[2] && bytes <= r[2]) return "LLC";
  if (r[2]) return "beyond";
  return "";
}

int mb_cmd_stride(int argc, char **argv, mb_ctx_t *c) {
  enum { O_SIZES = MB_OPT_FIRST_LOCAL, O_PAGES, O_BUDGET };
  static const struct option opts[] = {MB_COMMON_LONGOPTS,
                                       {"sizes", required_argument, 0, O_SIZES},
                                       {"pages", required_argument, 0, O_PAGES},
                                       {"budget", required_argument, 0, O_BUDGET},
                                       {0, 0, 0, 0}};
  uint64_t sizes[64], budget = 4u << 20;
  size_t nsizes = 0;
  mb_page_kind_t kind = MB_PAGES_4K;
  int o, bad;
  optind = 1;
  opterr = 0;
  while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
    switch (o) {
    case 'h':
      fputs(stride_help, stdout);
      fputs(mb_common_help, stdout);
      return MB_EXIT_OK;
    case O_SIZES:
      nsizes = parse_sizes(c, optarg, sizes, 64, &bad);
      if (bad) return MB_EXIT_USAGE;
      break;
    case O_BUDGET:
      if (mb_uint_opt(c, "--budget", optarg, 0, 1ull << 40, &budget)) return MB_EXIT_USAGE;
      break;
    case O_PAGES:
      if (strcasecmp(optarg, "4K") == 0) kind = MB_PAGES_4K;
      else if (strcasecmp(optarg, "2M") == 0) kind = MB_PAGES_2M;
      else return mb_usage_error(c, "--pages: '%s' is not 4K or 2M", optarg);
      break;
    case ':': return mb_usage_error(c, "option '%s' needs a value", argv[optind - 1]);
    case '?': return mb_usage_error(c, "unknown option '%s'", argv[optind - 1]);
    default:
      if (mb_common_opt(c, o, optarg)) return MB_EXIT_USAGE;
    }
  }
  if (optind < argc) return mb_usage_error(c, "unexpected argument '%s'", argv[optind]);
  if (c->plot) return mb_usage_error(c, "--plot is supported by chase and tlb only");
  if (!c->reps) c->reps = 5;
  int rc = mb_start(c);
  if (rc) return rc;
  if (!nsizes) {
    const uint64_t *r = c->sys.reported;
    for (int l = 0; l < 3; l++)
      if (r[l] && (nsizes == 0 || r[l] / 2 > sizes[nsizes - 1]))
        sizes[nsizes++] = (r[l] / 2 + MB_PAGE - 1) / MB_PAGE * MB_PAGE;
    sizes[nsizes++] = r[2] ? 4 * r[2] : 64u << 20;
  }

  srow_t *rows = calloc(nsizes * NORD, sizeof *rows);
  size_t n = 0;
  char sz[32];
  for (size_t i = 0; i < nsizes; i++) {
    mb_buf_t b;
    if (mb_buf_alloc(&b, sizes[i], kind, &c->sys) != 0) {
      free(rows);
      return MB_EXIT_FAIL;
    }
    for (int ord = 0; ord < NORD; ord++) {
      srow_t *r = &rows[n++];
      r->bytes = sizes[i];
      r->where = where_of(c, sizes[i]);
      r->order = ord;
      size_t stride = ord == ORD_PAGE ? MB_PAGE : MB_LINE;
      size_t nrows = sizes[i] / stride, passes = stride;
      if (ord != ORD_LINEAR && budget && (uint64_t)nrows * stride > budget) {
        passes = (size_t)((budget + nrows - 1) / nrows);
        if (ord == ORD_PAGE) passes = (passes + 63) / 64 * 64;
        if (passes < 1) passes = 1;
        if (passes > stride) passes = stride;
      }
      mb_progress(c, "stride %s %s", mb_fmt_size(sizes[i], sz, sizeof sz), ord_name[ord]);
      measure(c, (unsigned char *)b.base, sizes[i], ord, passes, r);
    }
    mb_buf_free(&b);
    srow_t *lin = &rows[n - NORD];
    for (int ord = 0; ord < NORD; ord++) {
      /* Net ratios only where both net times are above resolution and
       * linear's is more than noise. */
      srow_t *r = &rows[n - NORD + ord];
      r->ratio = !lin->net_below && !r->net_below && lin->net_ns > 0.05 * lin->raw_ns
                     ? r->net_ns / lin->net_ns
                     : NAN;
      rows[n - NORD + ord].raw_ratio = rows[n - NORD + ord].raw_ns / lin->raw_ns;
    }
  }
  mb_progress(c, "%s", "");

  if (c->out == MB_OUT_JSON) {
    mb_json_t j;
    mb_json_init(&j, stdout, 1);
    mb_json_begin_object(&j, NULL);
    mb_json_common(&j, c);
    mb_json_begin_object(&j, "config");
    mb_json_string(&j, "page", kind == MB_PAGES_4K ? "4K" : "2M");
    mb_json_int(&j, "budget", (long long)budget);
    mb_json_end_object(&j);
    mb_json_begin_array(&j, "results");
    for (size_t i = 0; i < n; i++) {
      srow_t *r = &rows[i];
      mb_json_begin_object(&j, NULL);
      mb_json_int(&j, "bytes", (long long)r->bytes);
      mb_json_string(&j, "inside", r->where[0] ? r->where : NULL);
      mb_json_string(&j, "order", ord_name[r->order]);
      mb_json_int(&j, "touches", (long long)r->touches);
      mb_json_int(&j, "passes", (long long)r->passes);
      mb_json_number(&j, "ns_per_touch", r->net_below ? NAN : r->net_ns);
      mb_json_number(&j, "cycles_per_touch", r->net_below ? NAN : r->net_cyc);
      mb_json_bool(&j, "net_below_resolution", r->net_below);
      mb_json_number(&j, "net_resolution_ns", r->res_ns);
      mb_json_number(&j, "raw_ns_per_touch", r->raw_ns);
      mb_json_number(&j, "raw_ns_min", r->raw_min_ns);
      mb_json_number(&j, "raw_ns_p99", r->raw_p99_ns);
      mb_json_number(&j, "overhead_ns_per_touch", r->ovh_ns);
      mb_json_number(&j, "ratio_to_linear", r->raw_ratio);
      mb_json_number(&j, "net_ratio_to_linear", r->ratio);
      mb_json_end_object(&j);
    }
    mb_json_end_array(&j);
    mb_json_end_object(&j);
    mb_json_finish(&j);
  } else if (c->out == MB_OUT_CSV) {
    fputs("bytes,inside,order,touches,passes,ns_per_touch,cycles_per_touch,"
          "net_resolution_ns,raw_ns_per_touch,raw_ns_min,raw_ns_p99,overhead_ns_per_touch,"
          "ratio_to_linear,net_ratio_to_linear\n", stdout);
    for (size_t i = 0; i < n; i++) {
      srow_t *r = &rows[i];
      mb_csv_int(stdout, 1, (long long)r->bytes);
      mb_csv_string(stdout, 0, r->where);
      mb_csv_string(stdout, 0, ord_name[r->order]);
      mb_csv_int(stdout, 0, (long long)r->touches);
      mb_csv_int(stdout, 0, (long long)r->passes);
      mb_csv_number(stdout, 0, r->net_below ? NAN : r->net_ns);
      mb_csv_number(stdout, 0, r->net_below ? NAN : r->net_cyc);
      mb_csv_number(stdout, 0, r->res_ns);
      mb_csv_number(stdout, 0, r->raw_ns);
      mb_csv_number(stdout, 0, r->raw_min_ns);
      mb_csv_number(stdout, 0, r->raw_p99_ns);
      mb_csv_number(stdout, 0, r->ovh_ns);
      mb_csv_number(stdout, 0, r->raw_ratio);
      mb_csv_number(stdout, 0, r->ratio);
      mb_csv_end_row(stdout);
    }
  } else {
    mb_table_header(stdout, c);
    printf("Every byte incremented once per pass; ns per touch, median of %u, %s pages.\n"
           "raw = measured, ovh = same loop without the memory access, net = raw - ovh;\n"
           "x lin = raw time relative to linear's raw time (the ratio the historical\n"
           "demonstrations quote).  A net time below what the measurement resolves\n"
           "(the TSC step per touch, or the jitter of raw and ovh: median - min) is\n"
           "shown as '<' that resolution: the out-of-order core overlaps such\n"
           "touches with the loop itself.\n",
           c->reps, kind == MB_PAGES_4K ? "4 KiB" : "2 MiB");
    printf("%8s %-6s | %-11s %7s %7s %7s %8s %7s %s\n", "buffer", "inside", "order", "raw",
           "ovh", "net", "cyc net", "x lin", "touched");
    for (size_t i = 0; i < n; i++) {
      srow_t *r = &rows[i];
      char touched[48];
      if (r->touches == r->bytes)
        snprintf(touched, sizeof touched, "all");
      else
        snprintf(touched, sizeof touched, "%llu of %llu offsets",
                 (unsigned long long)r->passes,
                 (unsigned long long)(r->order == ORD_PAGE ? MB_PAGE : MB_LINE));
      char net[16], cyc[16];
      if (r->net_below) {
        snprintf(net, sizeof net, "<%.2g", r->res_ns);
        snprintf(cyc, sizeof cyc, "<%.2g", r->res_cyc);
      } else {
        snprintf(net, sizeof net, "%.3f", r->net_ns);
        snprintf(cyc, sizeof cyc, "%.2f", r->net_cyc);
      }
      printf("%8s %-6s | %-11s %7.3f %7.3f %7s %8s %7.2f %s\n",
             r->order == 0 ? mb_fmt_size(r->bytes, sz, sizeof sz) : "",
             r->order == 0 ? r->where : "", ord_name[r->order], r->raw_ns, r->ovh_ns,
             net, cyc, r->raw_ratio, touched);
    }
  }
  free(rows);
  return MB_EXIT_OK;
}
