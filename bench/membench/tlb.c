/*
 * tlb.c - `compactptr-membench tlb`: TLB reach, TLB refill after a flush,
 * and process vs thread switches through a pipe.
 *
 * Reach: N virtual 4 KiB pages all mapped (MAP_SHARED) onto ONE physical
 * page of a memfd; page i is read at line i mod 64.  The data footprint is
 * therefore one page (64 lines, always in L1d) whatever N is, while the
 * TLB must hold N translations, so every knee in cycles-per-load against N
 * is a TLB knee, not a cache knee.  The loads form a dependent chain: the
 * next address adds the value just loaded (always 0), and the pages are
 * visited in a random cyclic order (a precomputed offset list, read
 * sequentially, is off the critical path).
 *
 * Refill: N touched pages of ordinary memory, one line each, in random
 * order; time a pass with the TLB warm, then after mprotect(PROT_READ) and
 * mprotect(PROT_READ|PROT_WRITE) over the buffer (which flushes its
 * translations), and report the difference per page.
 *
 * Ping-pong: two processes (fork) or two threads exchange one byte through
 * two pipes, pinned to the same CPU so every hand-off is a context switch;
 * between processes the switch also changes address space.  Optionally
 * each side touches P pages after each wake-up, to show refill costs.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "membench.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static const char tlb_help[] =
    "Usage: compactptr-membench tlb [OPTIONS]\n"
    "TLB reach at constant cache footprint, TLB refill cost after a flush,\n"
    "and two processes vs two threads ping-ponging through a pipe.\n"
    "\n"
    "  --only LIST        any of reach,refill,pingpong (default: all three)\n"
    "  --min-pages N      reach: smallest page count (default 4)\n"
    "  --max-pages N      reach: largest page count (default 16384); every page\n"
    "                     is a separate mapping of one physical page, so N is\n"
    "                     limited by vm.max_map_count\n"
    "  --steps N          reach: page counts per octave (default 4)\n"
    "  --knee-rise R      reach: relative rise that makes a knee, percent (25)\n"
    "  --loads N          reach: loads per repetition (default 32768)\n"
    "  --refill-pages L   refill: comma-separated page counts\n"
    "                     (default 16,64,256,1024,4096)\n"
    "  --round-trips N    pingpong: round trips per repetition (default 5000)\n"
    "  --pp-pages P       pingpong: also run with each side touching P pages per\n"
    "                     wake-up (default 512; 0 = only the bare switch)\n"
    "Default --reps 15.\n"
    "\n"
    "Output: reach, TSC cycles and ns per load against pages (knees = L1 and\n"
    "L2 dTLB reach, found on the per-count minima, compared with CPUID's entry\n"
    "counts); refill, cycles per\n"
    "page warm, after the flush, and their difference; pingpong, ns and\n"
    "cycles per switch (half a round trip) for processes and threads.\n"
    "\n";

/* ---- reach ---------------------------------------------------------------- */

typedef struct reach_row {
  uint64_t pages;
  double cyc, ns, cyc_min, cyc_p99;
} reach_row_t;

static __attribute__((noinline)) uintptr_t reach_loop(const char *base, const uint32_t *off,
                                                      size_t n, size_t rounds) {
  uintptr_t v = 0;
  for (size_t r = 0; r < rounds; r++)
    for (size_t k = 0; k < n; k++) v = *(const volatile uintptr_t *)(base + off[k] + v);
  return v;
}

static volatile uintptr_t sink;

static long max_map_count(void) {
  FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
  long v = 65530;
  if (f) {
    if (fscanf(f, "%ld", &v) != 1) v = 65530;
    fclose(f);
  }
  return v;
}

static int run_reach(mb_ctx_t *c, uint64_t lo, uint64_t hi, unsigned steps, uint64_t loads,
                     reach_row_t **out, size_t *nout) {
  long maxmap = max_map_count();
  if ((long)hi > maxmap - 2000) {
    fprintf(stderr, "compactptr-membench tlb: --max-pages %llu needs as many mappings, "
                    "but vm.max_map_count is %ld\n", (unsigned long long)hi, maxmap);
    return -1;
  }
  int fd = memfd_create("compactptr-membench-tlb", 0);
  if (fd < 0 || ftruncate(fd, MB_PAGE) != 0) {
    fprintf(stderr, "compactptr-membench tlb: memfd: %s\n", strerror(errno));
    return -1;
  }
  size_t len = (size_t)hi * MB_PAGE;
  char *base = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) {
    fprintf(stderr, "compactptr-membench tlb: mmap: %s\n", strerror(errno));
    close(fd);
    return -1;
  }
  for (uint64_t i = 0; i < hi; i++)
    if (mmap(base + i * MB_PAGE, MB_PAGE, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0) ==
        MAP_FAILED) {
      fprintf(stderr, "compactptr-membench tlb: mapping page %llu: %s\n",
              (unsigned long long)i, strerror(errno));
      munmap(base, len);
      close(fd);
      return -1;
    }
  close(fd);

  uint64_t counts[512];
  size_t nc = mb_size_steps(lo, hi, steps, 1, counts, 512);
  reach_row_t *rows = calloc(nc, sizeof *rows);
  uint32_t *order = malloc(hi * sizeof *order), *off = malloc(hi * sizeof *off);
  double *t = malloc(c->reps * sizeof *t);
  mb_rng_t rng;
  mb_rng_seed(&rng, c->seed);
  for (size_t i = 0; i < nc; i++) {
    size_t n = (size_t)counts[i];
    mb_progress(c, "tlb reach %zu pages", n);
    for (size_t k = 0; k < n; k++) order[k] = (uint32_t)k;
    mb_shuffle_u32(&rng, order, n);
    for (size_t k = 0; k < n; k++)
      off[k] = order[k] * MB_PAGE + (order[k] % (MB_PAGE / MB_LINE)) * MB_LINE;
    size_t rounds = (size_t)((loads + n - 1) / n);
    sink = reach_loop(base, off, n, rounds > 4 ? 4 : rounds); /* warm-up */
    for (unsigned r = 0; r < c->reps; r++) {
      uint64_t t0 = mb_tsc_begin();
      uintptr_t v = reach_loop(base, off, n, rounds);
      uint64_t t1 = mb_tsc_end();
      sink = v;
      t[r] = (double)(t1 - t0) / (double)(rounds * n);
    }
    mb_stats_t s = mb_stats(t, c->reps);
    rows[i].pages = n;
    rows[i].cyc = s.median;
    rows[i].cyc_min = s.min;
    rows[i].cyc_p99 = s.p99;
    rows[i].ns = mb_ticks_to_ns(&c->clock, s.median);
  }
  free(t);
  free(order);
  free(off);
  munmap(base, len);
  *out = rows;
  *nout = nc;
  return 0;
}

/* ---- refill ----------------------------------------------------------------- */

typedef struct refill_row {
  uint64_t pages;
  double warm, flushed;         /* TSC cycles per page, medians */
  double refill, res;           /* flushed - warm (NAN below res: mb_net) */
} refill_row_t;

static int run_refill(mb_ctx_t *c, const uint64_t *pages, size_t np, refill_row_t *rows) {
  mb_rng_t rng;
  mb_rng_seed(&rng, c->seed + 1);
  double *w = malloc(c->reps * sizeof *w), *f = malloc(c->reps * sizeof *f);
  for (size_t i = 0; i < np; i++) {
    size_t n = (size_t)pages[i];
    mb_progress(c, "tlb refill %zu pages", n);
    mb_buf_t b;
    if (mb_buf_alloc(&b, n * MB_PAGE, MB_PAGES_4K, &c->sys) != 0) return -1;
    uint32_t *order = malloc(n * sizeof *order), *off = malloc(n * sizeof *off);
    for (size_t k = 0; k < n; k++) order[k] = (uint32_t)k;
    mb_shuffle_u32(&rng, order, n);
    for (size_t k = 0; k < n; k++)
      off[k] = order[k] * MB_PAGE + (order[k] % (MB_PAGE / MB_LINE)) * MB_LINE;
    memset(b.base, 0, n * MB_PAGE);
    for (unsigned r = 0; r < c->reps; r++) {
      sink = reach_loop(b.base, off, n, 2); /* warm TLB and caches */
      uint64_t t0 = mb_tsc_begin();
      uintptr_t v = reach_loop(b.base, off, n, 1);
      uint64_t t1 = mb_tsc_end();
      sink = v;
      if (mprotect(b.base, n * MB_PAGE, PROT_READ) != 0 ||
          mprotect(b.base, n * MB_PAGE, PROT_READ | PROT_WRITE) != 0) {
        fprintf(stderr, "compactptr-membench tlb: mprotect: %s\n", strerror(errno));
        return -1;
      }
      uint64_t t2 = mb_tsc_begin();
      v = reach_loop(b.base, off, n, 1);
      uint64_t t3 = mb_tsc_end();
      sink = v;
      w[r] = (double)(t1 - t0) / (double)n;
      f[r] = (double)(t3 - t2) / (double)n;
    }
    mb_stats_t sw = mb_stats(w, c->reps), sf = mb_stats(f, c->reps);
    double step = c->clock.resolution > 0 ? c->clock.resolution : 1;
    rows[i].pages = n;
    rows[i].warm = sw.median;
    rows[i].flushed = sf.median;
    rows[i].refill = mb_net(sf, sw, step / (double)n, &rows[i].res);
    free(order);
    free(off);
    mb_buf_free(&b);
  }
  free(w);
  free(f);
  return 0;
}

/* ---- ping-pong ------------------------------------------------------------- */

typedef struct pp_row {
  const char *mode; /* "processes" / "threads" */
  uint64_t touch_pages;
  double ns, cyc, ns_min, ns_p99;
} pp_row_t;

typedef struct pp_side {
  int rd, wr;
  uint64_t rounds;
  char *pages;
  size_t npages;
} pp_side_t;

static void touch_pages(char *p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i * MB_PAGE + (i % 64) * MB_LINE]++;
}

static void *echo(void *arg) {
  pp_side_t *s = arg;
  char ch;
  for (uint64_t i = 0; i < s->rounds; i++) {
    if (read(s->rd, &ch, 1) != 1) break;
    touch_pages(s->pages, s->npages);
    if (write(s->wr, &ch, 1) != 1) break;
  }
  return NULL;
}

static int run_pp_one(mb_ctx_t *c, int threads, uint64_t rounds, size_t npages, pp_row_t *row) {
  double *t = malloc(c->reps * sizeof *t);
  size_t plen = (npages ? npages : 1) * MB_PAGE;
  char *mine = mmap(NULL, plen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  char *theirs = mmap(NULL, plen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mine == MAP_FAILED || theirs == MAP_FAILED) return -1;
  memset(mine, 0, plen);
  memset(theirs, 0, plen);
  for (unsigned r = 0; r < c->reps; r++) {
    int a[2], b[2];
    if (pipe(a) != 0 || pipe(b) != 0) {
      fprintf(stderr, "compactptr-membench tlb: pipe: %s\n", strerror(errno));
      return -1;
    }
    pp_side_t other = {a[0], b[1], rounds + 1, theirs, npages};
    pthread_t th;
    pid_t pid = -1;
    if (threads) {
      if (pthread_create(&th, NULL, echo, &other) != 0) return -1;
    } else {
      pid = fork();
      if (pid < 0) return -1;
      if (pid == 0) {
        echo(&other);
        _exit(0);
      }
    }
    char ch = 'x';
    /* One untimed round trip: the partner is up and waiting. */
    if (write(a[1], &ch, 1) != 1 || read(b[0], &ch, 1) != 1) return -1;
    uint64_t t0 = mb_tsc_begin();
    for (uint64_t i = 0; i < rounds; i++) {
      if (write(a[1], &ch, 1) != 1 || read(b[0], &ch, 1) != 1) return -1;
      touch_pages(mine, npages);
    }
    uint64_t t1 = mb_tsc_end();
    t[r] = (double)(t1 - t0) / (double)(2 * rounds);
    close(a[1]);
    if (threads)
      pthread_join(th, NULL);
    else
      waitpid(pid, NULL, 0);
    close(a[0]);
    close(b[0]);
    close(b[1]);
  }
  mb_stats_t s = mb_stats(t, c->reps);
  row->mode = threads ? "threads" : "processes";
  row->touch_pages = npages;
  row->cyc = s.median;
  row->ns = mb_ticks_to_ns(&c->clock, s.median);
  row->ns_min = mb_ticks_to_ns(&c->clock, s.min);
  row->ns_p99 = mb_ticks_to_ns(&c->clock, s.p99);
  munmap(mine, plen);
  munmap(theirs, plen);
  free(t);
  return 0;
}

/* ---- output ------------------------------------------------------------- */

static int plot_reach(mb_ctx_t *c, const reach_row_t *rows, size_t n, const mb_knee_t *k,
                      size_t nk) {
  char dir[] = "/tmp/compactptr-membench.XXXXXX", data[64], script[64];
  if (!mkdtemp(dir)) return -1;
  snprintf(data, sizeof data, "%s/tlb.dat", dir);
  snprintf(script, sizeof script, "%s/tlb.gp", dir);
  FILE *df = fopen(data, "w"), *g = fopen(script, "w");
  if (!df || !g) return -1;
  for (size_t i = 0; i < n; i++)
    fprintf(df, "%llu %g %g %g\n", (unsigned long long)rows[i].pages, rows[i].cyc,
            rows[i].cyc_min, rows[i].cyc_p99);
  fclose(df);
  if (strcmp(mb_plot_format(c->plot), "svg") == 0)
    fputs("set terminal svg size 960,600 dynamic font 'Sans,12' background '#ffffff'\n", g);
  else
    fputs("set terminal pngcairo size 960,600 font 'Sans,11' background '#ffffff'\n", g);
  fprintf(g, "set output '%s'\n", c->plot);
  fprintf(g, "set title \"compactptr-membench tlb: TLB reach at constant cache footprint on %s\\n%s\" noenhanced\n",
          c->sys.cpu_model, c->cmdline);
  fputs("set logscale x 2\nset grid\nset xlabel 'pages touched (4 KiB each, one line per page)'\n"
        "set ylabel 'TSC cycles per dependent load'\nset key top left box opaque\n", g);
  int tag = 1;
  for (size_t i = 0; i < nk && i < 2; i++, tag++) {
    fprintf(g, "set arrow %d from %g, graph 0 to %g, graph 1 nohead dt 2 lw 1.5 lc rgb '#d62728'\n",
            tag, k[i].x, k[i].x);
    fprintf(g, "set label %d \"L%zu dTLB knee %g pages\" at %g, graph 0.97 right rotate by 90 offset -0.6,0 tc rgb '#d62728'\n",
            tag, i + 1, k[i].x, k[i].x);
  }
  unsigned rep[2] = {c->sys.dtlb_l1_4k, c->sys.dtlb_l2_4k};
  for (int i = 0; i < 2; i++, tag++)
    if (rep[i] && n && rep[i] >= rows[0].pages && rep[i] <= rows[n - 1].pages) {
      fprintf(g, "set arrow %d from %u, graph 0 to %u, graph 1 nohead dt 3 lc rgb '#7f7f7f'\n",
              tag, rep[i], rep[i]);
      fprintf(g, "set label %d \"L%d dTLB %u entries (CPUID)\" at %u, graph 0.03 left rotate by 90 offset -0.6,0 tc rgb '#7f7f7f'\n",
              tag, i + 1, rep[i], rep[i]);
    }
  fprintf(g, "plot '%s' using 1:3 with linespoints pt 7 ps 0.5 lw 2 lc 1 title 'min', "
             "'%s' using 1:2 with lines lw 1 lc 1 title 'median'\n", data, data);
  fclose(g);
  int rc = mb_run_gnuplot(script, c->plot);
  mb_plot_cleanup(dir, data, script);
  return rc;
}

static size_t parse_list(const mb_ctx_t *c, const char *opt, const char *arg, uint64_t *out,
                         size_t cap, int *bad) {
  *bad = 0;
  if (mb_list_opt(c, opt, arg)) {
    *bad = 1;
    return 0;
  }
  char *copy = strdup(arg), *save = NULL;
  size_t n = 0;
  for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    if (n == cap || mb_uint_opt(c, opt, tok, 1, 1u << 20, &out[n])) {
      *bad = 1;
      break;
    }
    n++;
  }
  if (!n && !*bad) *bad = 1, mb_usage_error(c, "%s: empty list", opt);
  free(copy);
  return n;
}

int mb_cmd_tlb(int argc, char **argv, mb_ctx_t *c) {
  enum { O_ONLY = MB_OPT_FIRST_LOCAL, O_MINP, O_MAXP, O_STEPS, O_RISE, O_LOADS, O_REFILL,
         O_RT, O_PPP };
  static const struct option opts[] = {MB_COMMON_LONGOPTS,
                                       {"only", required_argument, 0, O_ONLY},
                                       {"min-pages", required_argument, 0, O_MINP},
                                       {"max-pages", required_argument, 0, O_MAXP},
                                       {"steps", required_argument, 0, O_STEPS},
                                       {"knee-rise", required_argument, 0, O_RISE},
                                       {"loads", required_argument, 0, O_LOADS},
                                       {"refill-pages", required_argument, 0, O_REFILL},
                                       {"round-trips", required_argument, 0, O_RT},
                                       {"pp-pages", required_argument, 0, O_PPP},
                                       {0, 0, 0, 0}};
  uint64_t lo = 4, hi = 16384, steps = 4, rise = 25, loads = 1u << 15, rt = 5000, ppp = 512;
  uint64_t refill[32] = {16, 64, 256, 1024, 4096};
  size_t nrefill = 5;
  int do_reach = 1, do_refill = 1, do_pp = 1, o, bad;
  optind = 1;
  opterr = 0;
  while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
    switch (o) {
    case 'h':
      fputs(tlb_help, stdout);
      fputs(mb_common_help, stdout);
      return MB_EXIT_OK;
    case O_ONLY: {
      do_reach = do_refill = do_pp = 0;
      if (mb_list_opt(c, "--only", optarg)) return MB_EXIT_USAGE;
      char *copy = strdup(optarg), *save = NULL;
      for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (strcmp(tok, "reach") == 0) do_reach = 1;
        else if (strcmp(tok, "refill") == 0) do_refill = 1;
        else if (strcmp(tok, "pingpong") == 0) do_pp = 1;
        else {
          mb_usage_error(c, "--only: '%s' is not reach, refill or pingpong", tok);
          free(copy);
          return MB_EXIT_USAGE;
        }
      }
      free(copy);
      if (!do_reach && !do_refill && !do_pp) return mb_usage_error(c, "--only: empty list");
      break;
    }
    case O_MINP: if (mb_uint_opt(c, "--min-pages", optarg, 1, 1u << 20, &lo)) return MB_EXIT_USAGE; break;
    case O_MAXP: if (mb_uint_opt(c, "--max-pages", optarg, 1, 1u << 20, &hi)) return MB_EXIT_USAGE; break;
    case O_STEPS: if (mb_uint_opt(c, "--steps", optarg, 1, 64, &steps)) return MB_EXIT_USAGE; break;
    case O_RISE: if (mb_uint_opt(c, "--knee-rise", optarg, 1, 1000, &rise)) return MB_EXIT_USAGE; break;
    case O_LOADS: if (mb_uint_opt(c, "--loads", optarg, 1, 1ull << 24, &loads)) return MB_EXIT_USAGE; break;
    case O_RT: if (mb_uint_opt(c, "--round-trips", optarg, 1, 1ull << 20, &rt)) return MB_EXIT_USAGE; break;
    case O_PPP: if (mb_uint_opt(c, "--pp-pages", optarg, 0, 1u << 18, &ppp)) return MB_EXIT_USAGE; break;
    case O_REFILL:
      nrefill = parse_list(c, "--refill-pages", optarg, refill, 32, &bad);
      if (bad) return MB_EXIT_USAGE;
      break;
    case ':': return mb_usage_error(c, "option '%s' needs a value", argv[optind - 1]);
    case '?': return mb_usage_error(c, "unknown option '%s'", argv[optind - 1]);
    default:
      if (mb_common_opt(c, o, optarg)) return MB_EXIT_USAGE;
    }
  }
  if (optind < argc) return mb_usage_error(c, "unexpected argument '%s'", argv[optind]);
  if (hi < lo) return mb_usage_error(c, "--max-pages is smaller than --min-pages");
  if (c->plot && !do_reach) return mb_usage_error(c, "--plot draws the reach curve; add reach to --only");
  if (!c->reps) c->reps = 15;
  int rc = mb_start(c);
  if (rc) return rc;

  reach_row_t *reach = NULL;
  size_t nreach = 0, nk = 0;
  mb_knee_t knees[16];
  if (do_reach) {
    if (run_reach(c, lo, hi, (unsigned)steps, loads, &reach, &nreach) != 0) return MB_EXIT_FAIL;
    double *x = malloc(nreach * sizeof *x), *y = malloc(nreach * sizeof *y);
    for (size_t i = 0; i < nreach; i++) x[i] = (double)reach[i].pages, y[i] = reach[i].cyc_min;
    nk = mb_find_knees(x, y, nreach, (double)rise / 100, knees, 16);
    free(x);
    free(y);
  }
  refill_row_t refill_rows[32];
  if (do_refill && run_refill(c, refill, nrefill, refill_rows) != 0) return MB_EXIT_FAIL;
  pp_row_t pp[4];
  size_t npp = 0;
  if (do_pp) {
    for (int withpages = 0; withpages < (ppp ? 2 : 1); withpages++)
      for (int threads = 0; threads < 2; threads++) {
        mb_progress(c, "tlb ping-pong %s%s", threads ? "threads" : "processes",
                    withpages ? " touching pages" : "");
        if (run_pp_one(c, threads, rt, withpages ? (size_t)ppp : 0, &pp[npp++]) != 0) {
          fprintf(stderr, "compactptr-membench tlb: ping-pong failed: %s\n", strerror(errno));
          return MB_EXIT_FAIL;
        }
      }
  }
  mb_progress(c, "%s", "");
  double meas[2] = {nk > 0 ? knees[0].x : 0, nk > 1 ? knees[1].x : 0};
  double repd[2] = {c->sys.dtlb_l1_4k, c->sys.dtlb_l2_4k};

  if (c->out == MB_OUT_JSON) {
    mb_json_t j;
    mb_json_init(&j, stdout, 1);
    mb_json_begin_object(&j, NULL);
    mb_json_common(&j, c);
    mb_json_begin_array(&j, "results");
    for (size_t i = 0; i < nreach; i++) {
      mb_json_begin_object(&j, NULL);
      mb_json_int(&j, "pages", (long long)reach[i].pages);
      mb_json_int(&j, "bytes_mapped", (long long)reach[i].pages * MB_PAGE);
      mb_json_number(&j, "cycles_per_load", reach[i].cyc);
      mb_json_number(&j, "ns_per_load", reach[i].ns);
      mb_json_number(&j, "cycles_min", reach[i].cyc_min);
      mb_json_number(&j, "cycles_p99", reach[i].cyc_p99);
      mb_json_end_object(&j);
    }
    mb_json_end_array(&j);
    mb_json_begin_array(&j, "knees");
    for (size_t i = 0; i < nk; i++) {
      mb_json_begin_object(&j, NULL);
      mb_json_int(&j, "pages", (long long)knees[i].x);
      mb_json_number(&j, "cycles_before", knees[i].before);
      mb_json_number(&j, "cycles_after", knees[i].after);
      mb_json_end_object(&j);
    }
    mb_json_end_array(&j);
    mb_json_begin_object(&j, "detected");
    for (int l = 0; l < 2; l++) {
      mb_json_begin_object(&j, l ? "l2_dtlb" : "l1_dtlb");
      if (meas[l] > 0) mb_json_int(&j, "measured_pages", (long long)meas[l]);
      else mb_json_null(&j, "measured_pages");
      if (repd[l] > 0) mb_json_int(&j, "reported_entries", (long long)repd[l]);
      else mb_json_null(&j, "reported_entries");
      mb_json_string(&j, "verdict", mb_knee_verdict(meas[l], repd[l]));
      mb_json_end_object(&j);
    }
    mb_json_end_object(&j);
    mb_json_begin_array(&j, "refill");
    for (size_t i = 0; do_refill && i < nrefill; i++) {
      mb_json_begin_object(&j, NULL);
      mb_json_int(&j, "pages", (long long)refill_rows[i].pages);
      mb_json_string(&j, "flush", "mprotect");
      mb_json_number(&j, "warm_cycles_per_page", refill_rows[i].warm);
      mb_json_number(&j, "flushed_cycles_per_page", refill_rows[i].flushed);
      mb_json_number(&j, "refill_cycles_per_page", refill_rows[i].refill);
      mb_json_number(&j, "refill_ns_per_page", mb_ticks_to_ns(&c->clock, refill_rows[i].refill));
      mb_json_bool(&j, "refill_below_resolution", isnan(refill_rows[i].refill));
      mb_json_number(&j, "refill_resolution_cycles", refill_rows[i].res);
      mb_json_end_object(&j);
    }
    mb_json_end_array(&j);
    mb_json_begin_array(&j, "pingpong");
    for (size_t i = 0; i < npp; i++) {
      mb_json_begin_object(&j, NULL);
      mb_json_string(&j, "mode", pp[i].mode);
      mb_json_int(&j, "touch_pages", (long long)pp[i].touch_pages);
      mb_json_number(&j, "ns_per_switch", pp[i].ns);
      mb_json_number(&j, "cycles_per_switch", pp[i].cyc);
      mb_json_number(&j, "ns_min", pp[i].ns_min);
      mb_json_number(&j, "ns_p99", pp[i].ns_p99);
      mb_json_end_object(&j);
    }
    mb_json_end_array(&j);
    mb_json_end_object(&j);
    mb_json_finish(&j);
  } else if (c->out == MB_OUT_CSV) {
    fputs("section,pages,mode,cycles,ns\n", stdout);
    for (size_t i = 0; i < nreach; i++) {
      mb_csv_string(stdout, 1, "reach");
      mb_csv_int(stdout, 0, (long long)reach[i].pages);
      mb_csv_string(stdout, 0, "load");
      mb_csv_number(stdout, 0, reach[i].cyc);
      mb_csv_number(stdout, 0, reach[i].ns);
      mb_csv_end_row(stdout);
    }
    for (size_t i = 0; do_refill && i < nrefill; i++) {
      const char *m[3] = {"warm", "flushed", "refill"};
      double v[3] = {refill_rows[i].warm, refill_rows[i].flushed, refill_rows[i].refill};
      for (int q = 0; q < 3; q++) {
        mb_csv_string(stdout, 1, "refill");
        mb_csv_int(stdout, 0, (long long)refill_rows[i].pages);
        mb_csv_string(stdout, 0, m[q]);
        mb_csv_number(stdout, 0, v[q]);
        mb_csv_number(stdout, 0, mb_ticks_to_ns(&c->clock, v[q]));
        mb_csv_end_row(stdout);
      }
    }
    for (size_t i = 0; i < npp; i++) {
      mb_csv_string(stdout, 1, "pingpong");
      mb_csv_int(stdout, 0, (long long)pp[i].touch_pages);
      mb_csv_string(stdout, 0, pp[i].mode);
      mb_csv_number(stdout, 0, pp[i].cyc);
      mb_csv_number(stdout, 0, pp[i].ns);
      mb_csv_end_row(stdout);
    }
  } else {
    mb_table_header(stdout, c);
    if (do_reach) {
      printf("TLB reach: one load per 4 KiB page, all pages aliasing one physical page\n"
             "(cache footprint 4 KiB), random page order; median of %u.\n", c->reps);
      printf("%8s %10s %8s %8s\n", "pages", "mapped", "cycles", "ns");
      for (size_t i = 0; i < nreach; i++) {
        char sz[32];
        printf("%8llu %10s %8.2f %8.2f\n", (unsigned long long)reach[i].pages,
               mb_fmt_size(reach[i].pages * MB_PAGE, sz, sizeof sz), reach[i].cyc, reach[i].ns);
      }
      printf("knees:");
      if (!nk) printf(" none");
      for (size_t i = 0; i < nk; i++)
        printf(" %g pages (%.1f -> %.1f cycles)%s", knees[i].x, knees[i].before, knees[i].after,
               i + 1 < nk ? "," : "");
      printf("\n");
      for (int l = 0; l < 2; l++)
        printf("  L%d dTLB reach: measured %g pages, CPUID %g entries (4 KiB)  %s\n", l + 1,
               meas[l], repd[l], mb_knee_verdict(meas[l], repd[l]));
      printf("\n");
    }
    if (do_refill) {
      printf("TLB refill after mprotect flush: TSC cycles per page touched (median of %u)\n",
             c->reps);
      printf("%8s %10s %10s %10s %10s\n", "pages", "warm", "flushed", "refill", "refill ns");
      for (size_t i = 0; i < nrefill; i++) {
        const refill_row_t *r = &refill_rows[i];
        char cyc[32], ns[32];
        printf("%8llu %10.1f %10.1f %10s %10s\n", (unsigned long long)r->pages, r->warm,
               r->flushed, mb_fmt_net(cyc, sizeof cyc, r->refill, r->res, 1),
               mb_fmt_net(ns, sizeof ns, mb_ticks_to_ns(&c->clock, r->refill),
                          mb_ticks_to_ns(&c->clock, r->res), 1));
      }
      printf("('<x': flushed minus warm is below what the runs resolve, x: the clock's step\n"
             "per page or the spread of the runs, whichever is larger)\n\n");
    }
    if (do_pp) {
      printf("Pipe ping-pong on one CPU: cost per switch (half a round trip), median of %u\n",
             c->reps);
      printf("%-10s %12s %10s %10s\n", "mode", "touch pages", "ns", "cycles");
      for (size_t i = 0; i < npp; i++)
        printf("%-10s %12llu %10.0f %10.0f\n", pp[i].mode, (unsigned long long)pp[i].touch_pages,
               pp[i].ns, pp[i].cyc);
      for (size_t i = 0; i + 1 < npp; i += 2)
        printf("address-space switch (processes - threads), %llu pages touched: %.0f ns\n",
               (unsigned long long)pp[i].touch_pages, pp[i].ns - pp[i + 1].ns);
    }
  }
  fflush(stdout);
  rc = MB_EXIT_OK;
  if (c->plot && plot_reach(c, reach, nreach, knees, nk) != 0) rc = MB_EXIT_FAIL;
  free(reach);
  return rc;
}
