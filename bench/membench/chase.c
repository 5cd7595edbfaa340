/*
 * chase.c - `compactptr-membench chase`: dependent-load latency against
 * working-set size, with 4 KiB and 2 MiB pages.
 *
 * Each working set is a fresh buffer (page kind chosen in mem.c) whose
 * cache lines are linked into one random cycle (perm.c); a load reads the
 * next line's address from the current line, so loads cannot overlap and
 * prefetchers find no pattern.  Per size and page kind: warm-up, then
 * --reps timed runs of --loads loads between serialised TSC reads; the
 * median is the reported latency.  Knees in the curve are matched to
 * L1d, L2 and LLC (knee.c) and compared with what the system reports.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "membench.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char chase_help[] =
    "Usage: compactptr-membench chase [--min SIZE] [--max SIZE] [OPTIONS]\n"
    "Dependent-load latency against working-set size: the lines of a buffer\n"
    "are linked into one random cycle and followed, one load at a time.\n"
    "\n"
    "  --min SIZE        smallest working set (default 4K; at least 128 bytes)\n"
    "  --max SIZE        largest working set (default 1G); sizes step by a\n"
    "                    quarter octave (x 2^(1/4)) from --min, ending at --max\n"
    "  --pages KIND      4K, 2M or both (default both): 4K maps with\n"
    "                    MADV_NOHUGEPAGE; 2M uses MAP_HUGETLB if enough huge\n"
    "                    pages are reserved, else MADV_HUGEPAGE on 2 MiB aligned\n"
    "                    memory, touched before timing; /proc/self/smaps tells\n"
    "                    how much was really huge (hugepage_fraction)\n"
    "  --loads N         loads per timed repetition, 16 to 16777216 (default\n"
    "                    16384: short repetitions, so some escape preemption on\n"
    "                    a busy machine)\n"
    "  --group-pages G   TLB locality: visit groups of G 4 KiB pages in random\n"
    "                    order, lines in random order inside a group (default 0:\n"
    "                    all lines in one random order); at most the pages of\n"
    "                    the smallest working set (--min)\n"
    "  --steps N         sizes per octave (default 4)\n"
    "  --knee-rise R     relative rise that makes a knee, in percent (default 25)\n"
    "Default --reps 31.\n"
    "\n"
    "Output: per size and page kind, ns and TSC cycles per load (median of\n"
    "the repetitions; min and p99 in --json/--csv), hugepage_fraction (0..1,\n"
    "of the buffer's mapping) and, below 1 for 2M, the reason; then the knees\n"
    "(L1d, L2, LLC), found on the curve of per-size minima, next to the sizes\n"
    "sysfs/sysconf/CPUID report.\n"
    "--json prints one object; its `results` array holds per size and page\n"
    "kind: bytes, page (\"4K\"/\"2M\"), ns_per_load, cycles_per_load,\n"
    "hugepage_fraction, ns_min, ns_p99, cycles_min, cycles_p99, fallback_reason,\n"
    "dtlb_load_misses_per_load and llc_load_misses_per_load (null when the\n"
    "counters are unavailable), disturbed_reps (repetitions kept although the\n"
    "thread was switched out during them).\n"
    "\n";

typedef struct row {
  uint64_t bytes;
  mb_page_kind_t kind;
  double ns_min, ns_med, ns_p99, cyc_min, cyc_med, cyc_p99;
  double huge;   /* fraction, -1 unknown */
  int hugetlb;
  char why[256];
  double ctr[MB_NCTR]; /* per load; NaN if unavailable */
  unsigned disturbed;  /* repetitions kept although the thread was switched out */
} row_t;

static const char *const kind_name[2] = {"4K", "2M"};

/** Follow the cycle for 16*n16 loads. */
static __attribute__((noinline)) void *chase_loop(void *p, size_t n16) {
  for (size_t i = 0; i < n16; i++) {
#define L p = *(void **)p;
    L L L L L L L L L L L L L L L L
#undef L
  }
  return p;
}

static void *volatile sink;

static int run_one(mb_ctx_t *c, row_t *r, uint32_t *order, uint64_t loads,
                   size_t group_pages, mb_rng_t *rng) {
  mb_buf_t b;
  if (mb_buf_alloc(&b, r->bytes, r->kind, &c->sys) != 0) return -1;
  r->huge = b.huge_fraction;
  r->hugetlb = b.hugetlb;
  snprintf(r->why, sizeof r->why, "%s", b.why);
  size_t nlines = r->bytes / MB_LINE;
  mb_line_order(rng, order, nlines, MB_PAGE / MB_LINE, group_pages);
  mb_link_cycle(b.base, MB_LINE, order, nlines);

  void *p = b.base + (size_t)order[0] * MB_LINE;
  size_t n16 = (size_t)(loads + 15) / 16;
  /* Warm-up: one full cycle (capped), so the timed runs see steady state. */
  size_t warm = nlines < (1u << 21) ? nlines : (1u << 21);
  p = chase_loop(p, warm / 16 + 1);

  unsigned reps = c->reps;
  double *t = malloc(reps * sizeof *t), *cv[MB_NCTR];
  for (int k = 0; k < MB_NCTR; k++) cv[k] = malloc(reps * sizeof(double));
  /* Repetitions during which the thread was switched out (another task
   * on this CPU) are retried, up to 4 x reps attempts; past that the
   * disturbed ones fill the remaining slots and are counted. */
  unsigned got = 0, spare = 0, disturbed = 0;
  double *dt = malloc(reps * sizeof *dt), *dcv[MB_NCTR];
  for (int k = 0; k < MB_NCTR; k++) dcv[k] = malloc(reps * sizeof(double));
  for (unsigned a = 0; a < 4 * reps && got < reps; a++) {
    int64_t c0[MB_NCTR], c1[MB_NCTR];
    long sw0 = mb_switches();
    mb_counters_read(&c->ctr, c0);
    uint64_t t0 = mb_tsc_begin();
    p = chase_loop(p, n16);
    uint64_t t1 = mb_tsc_end();
    mb_counters_read(&c->ctr, c1);
    int clean = mb_switches() == sw0;
    double v = (double)(t1 - t0) / (double)(n16 * 16), cvv[MB_NCTR];
    for (int k = 0; k < MB_NCTR; k++)
      cvv[k] = c0[k] >= 0 && c1[k] >= 0 ? (double)(c1[k] - c0[k]) / (double)(n16 * 16) : NAN;
    if (clean) {
      t[got] = v;
      for (int k = 0; k < MB_NCTR; k++) cv[k][got] = cvv[k];
      got++;
    } else if (spare < reps) {
      dt[spare] = v;
      for (int k = 0; k < MB_NCTR; k++) dcv[k][spare] = cvv[k];
      spare++;
    }
  }
  for (unsigned i = 0; got < reps && i < spare; i++, disturbed++) {
    t[got] = dt[i];
    for (int k = 0; k < MB_NCTR; k++) cv[k][got] = dcv[k][i];
    got++;
  }
  reps = got;
  r->disturbed = disturbed;
  free(dt);
  for (int k = 0; k < MB_NCTR; k++) free(dcv[k]);
  sink = p;
  mb_stats_t s = mb_stats(t, reps);
  r->cyc_min = s.min;
  r->cyc_med = s.median;
  r->cyc_p99 = s.p99;
  r->ns_min = mb_ticks_to_ns(&c->clock, s.min);
  r->ns_med = mb_ticks_to_ns(&c->clock, s.median);
  r->ns_p99 = mb_ticks_to_ns(&c->clock, s.p99);
  for (int k = 0; k < MB_NCTR; k++) {
    r->ctr[k] = mb_counter_ok(&c->ctr, k) ? mb_stats(cv[k], reps).median : NAN;
    free(cv[k]);
  }
  free(t);
  mb_buf_free(&b);
  return 0;
}

/* ---- knees ----------------------------------------------------------- */

typedef struct detect {
  int curve;               /* page kind whose curve was used, -1 none */
  size_t nk[2];
  mb_knee_t knees[2][16];
  double measured[3];      /* L1d, L2, LLC in bytes; 0 unknown */
} detect_t;

static void detect_knees(const row_t *rows, size_t n, int have[2], double rise,
                         const uint64_t reported[3], uint64_t max_bytes, detect_t *d) {
  memset(d, 0, sizeof *d);
  d->curve = -1;
  int huge_ok = have[1];
  for (int k = 0; k < 2; k++) {
    if (!have[k]) continue;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
      if (rows[i].kind == (mb_page_kind_t)k) {
        x[m] = (double)rows[i].bytes;
        y[m++] = rows[i].ns_min; /* robust to preemption on a shared machine */
        if (k == 1 && rows[i].bytes >= MB_HUGE && rows[i].huge < 0.9) huge_ok = 0;
      }
    d->nk[k] = mb_find_knees(x, y, m, rise, d->knees[k], 16);
    free(x);
    free(y);
  }
  /* Cache knees from the 2 MiB curve when it really had huge pages: with
   * 4 KiB pages TLB misses add knees of their own. */
  d->curve = huge_ok ? 1 : have[0] ? 0 : have[1] ? 1 : -1;
  if (d->curve < 0) return;
  const mb_knee_t *k = d->knees[d->curve];
  size_t nk = d->nk[d->curve];
  if (!nk) return;
  /* L1d: the first knee.  LLC: the largest relative jump after it (the
   * step to DRAM dwarfs the others), when the curve goes on to at least
   * twice the reported LLC.  L2: the largest jump between the two.  Extra
   * knees (ramps through intermediate levels, TLB effects) stay listed
   * but are not assigned. */
  d->measured[0] = k[0].x;
  size_t llc = 0;
  for (size_t i = 1; i < nk; i++)
    if (!llc || k[i].after / k[i].before > k[llc].after / k[llc].before) llc = i;
  int reaches = !reported[2] || max_bytes >= 2 * reported[2];
  if (llc && reaches) d->measured[2] = k[llc].x;
  size_t l2 = 0;
  size_t end = llc && reaches ? llc : nk;
  for (size_t i = 1; i < end; i++)
    if (!l2 || k[i].after / k[i].before > k[l2].after / k[l2].before) l2 = i;
  if (l2) d->measured[1] = k[l2].x;
}

/* ---- output ------------------------------------------------------------ */

static void print_table(FILE *f, mb_ctx_t *c, const row_t *rows, size_t n,
                        int have[2], const detect_t *d) {
  char sz[32];
  int ctr = mb_counter_ok(&c->ctr, MB_CTR_DTLB) || mb_counter_ok(&c->ctr, MB_CTR_LLC);
  mb_table_header(f, c);
  fprintf(f, "Random pointer-chase latency per load: median of %u repetitions (min in\n"
             "parentheses); cycles = TSC cycles, median; 4K/2M = ratio of the medians\n",
          c->reps);
  fprintf(f, "%11s", "working set");
  for (int k = 0; k < 2; k++)
    if (have[k])
      fprintf(f, " | %s pages: %8s %8s %8s %6s%s", kind_name[k], "ns", "(min)", "cycles", "huge",
              ctr ? "  dTLBmiss   LLCmiss" : "");
  if (have[0] && have[1]) fprintf(f, " | 4K/2M");
  fputc('\n', f);
  for (size_t i = 0; i < n;) {
    uint64_t bytes = rows[i].bytes;
    const row_t *rk[2] = {NULL, NULL};
    for (; i < n && rows[i].bytes == bytes; i++) rk[rows[i].kind] = &rows[i];
    fprintf(f, "%11s", mb_fmt_size(bytes, sz, sizeof sz));
    for (int k = 0; k < 2; k++) {
      if (!have[k]) continue;
      const row_t *r = rk[k];
      if (!r) {
        fprintf(f, " | %9s %8s %8s %8s %6s", "", "-", "-", "-", "-");
        continue;
      }
      char hf[16];
      if (r->huge < 0)
        snprintf(hf, sizeof hf, "?");
      else
        snprintf(hf, sizeof hf, "%.0f%%", 100 * r->huge);
      char mn[16];
      snprintf(mn, sizeof mn, "(%.2f)", r->ns_min);
      fprintf(f, " | %9s %8.2f %8s %8.1f %6s", "", r->ns_med, mn, r->cyc_med, hf);
      if (ctr)
        for (int q = 0; q < MB_NCTR; q++) {
          if (isnan(r->ctr[q]))
            fprintf(f, " %9s", "n/a");
          else
            fprintf(f, " %9.3f", r->ctr[q]);
        }
    }
    if (have[0] && have[1] && rk[0] && rk[1]) fprintf(f, " | %5.2f", rk[0]->ns_med / rk[1]->ns_med);
    fputc('\n', f);
  }

  unsigned dist = 0, distrows = 0;
  for (size_t i = 0; i < n; i++) dist += rows[i].disturbed, distrows += rows[i].disturbed > 0;
  if (dist)
    fprintf(f, "note: %u repetitions over %u runs were kept although another task ran on "
               "this CPU during them (retries exhausted): a busy machine\n", dist, distrows);
  /* Fallback reasons, once each. */
  for (size_t i = 0; i < n; i++) {
    if (!rows[i].why[0]) continue;
    int seen = 0;
    for (size_t j = 0; j < i; j++)
      if (strcmp(rows[j].why, rows[i].why) == 0) seen = 1;
    if (seen) continue;
    size_t cnt = 0;
    for (size_t j = i; j < n; j++)
      if (strcmp(rows[j].why, rows[i].why) == 0) cnt++;
    fprintf(f, "note: %s pages not fully huge for %zu size(s) from %s: %s\n",
            kind_name[rows[i].kind], cnt, mb_fmt_size(rows[i].bytes, sz, sizeof sz),
            rows[i].why);
  }

  fputc('\n', f);
  for (int k = 0; k < 2; k++) {
    if (!have[k]) continue;
    fprintf(f, "knees, %s curve (minima):", kind_name[k]);
    if (!d->nk[k]) fprintf(f, " none");
    for (size_t i = 0; i < d->nk[k]; i++)
      fprintf(f, " %s (%.2f -> %.2f ns)%s", mb_fmt_size((uint64_t)d->knees[k][i].x, sz, sizeof sz),
              d->knees[k][i].before, d->knees[k][i].after, i + 1 < d->nk[k] ? "," : "");
    fputc('\n', f);
  }
  if (d->curve >= 0) {
    static const char *const lv[3] = {"L1d", "L2", "LLC"};
    fprintf(f, "cache sizes from the %s curve (L1d: first knee; LLC: largest jump, if the\n"
               "curve reaches 2 x the reported LLC; L2: largest jump between them):\n",
            kind_name[d->curve]);
    for (int l = 0; l < 3; l++) {
      char m[32], rep[32];
      fprintf(f, "  %-4s measured %-8s reported %-8s (%s)  %s\n", lv[l],
              d->measured[l] > 0 ? mb_fmt_size((uint64_t)d->measured[l], m, sizeof m) : "-",
              c->sys.reported[l] ? mb_fmt_size(c->sys.reported[l], rep, sizeof rep) : "-",
              c->sys.reported_src[l] ? c->sys.reported_src[l] : "none",
              mb_knee_verdict(d->measured[l], (double)c->sys.reported[l]));
    }
  }
}

static void print_json(FILE *f, mb_ctx_t *c, const row_t *rows, size_t n, int have[2],
                       const detect_t *d, uint64_t lo, uint64_t hi, uint64_t loads,
                       uint64_t group, double rise) {
  mb_json_t j;
  mb_json_init(&j, f, 1);
  mb_json_begin_object(&j, NULL);
  mb_json_common(&j, c);
  mb_json_begin_object(&j, "config");
  mb_json_int(&j, "min_bytes", (long long)lo);
  mb_json_int(&j, "max_bytes", (long long)hi);
  mb_json_int(&j, "loads_per_rep", (long long)loads);
  mb_json_int(&j, "group_pages", (long long)group);
  mb_json_int(&j, "line_bytes", MB_LINE);
  mb_json_number(&j, "knee_rise", rise);
  mb_json_end_object(&j);
  mb_json_begin_array(&j, "results");
  for (size_t i = 0; i < n; i++) {
    const row_t *r = &rows[i];
    mb_json_begin_object(&j, NULL);
    mb_json_int(&j, "bytes", (long long)r->bytes);
    mb_json_string(&j, "page", kind_name[r->kind]);
    mb_json_number(&j, "ns_per_load", r->ns_med);
    mb_json_number(&j, "cycles_per_load", r->cyc_med);
    mb_json_number(&j, "hugepage_fraction", r->huge < 0 ? NAN : r->huge);
    mb_json_number(&j, "ns_min", r->ns_min);
    mb_json_number(&j, "ns_p99", r->ns_p99);
    mb_json_number(&j, "cycles_min", r->cyc_min);
    mb_json_number(&j, "cycles_p99", r->cyc_p99);
    mb_json_bool(&j, "hugetlb", r->hugetlb);
    mb_json_int(&j, "disturbed_reps", r->disturbed);
    mb_json_string(&j, "fallback_reason", r->why[0] ? r->why : NULL);
    for (int k = 0; k < MB_NCTR; k++) {
      char key[64];
      snprintf(key, sizeof key, "%s_per_load", mb_counter_names[k]);
      mb_json_number(&j, key, r->ctr[k]);
    }
    mb_json_end_object(&j);
  }
  mb_json_end_array(&j);
  mb_json_begin_object(&j, "knees");
  for (int k = 0; k < 2; k++) {
    if (!have[k]) continue;
    mb_json_begin_array(&j, kind_name[k]);
    for (size_t i = 0; i < d->nk[k]; i++) {
      mb_json_begin_object(&j, NULL);
      mb_json_int(&j, "bytes", (long long)d->knees[k][i].x);
      mb_json_number(&j, "ns_before", d->knees[k][i].before);
      mb_json_number(&j, "ns_after", d->knees[k][i].after);
      mb_json_end_object(&j);
    }
    mb_json_end_array(&j);
  }
  mb_json_end_object(&j);
  mb_json_begin_object(&j, "detected");
  mb_json_string(&j, "curve", d->curve >= 0 ? kind_name[d->curve] : NULL);
  static const char *const lv[3] = {"l1d", "l2", "llc"};
  for (int l = 0; l < 3; l++) {
    mb_json_begin_object(&j, lv[l]);
    if (d->measured[l] > 0)
      mb_json_int(&j, "measured_bytes", (long long)d->measured[l]);
    else
      mb_json_null(&j, "measured_bytes");
    if (c->sys.reported[l])
      mb_json_int(&j, "reported_bytes", (long long)c->sys.reported[l]);
    else
      mb_json_null(&j, "reported_bytes");
    mb_json_string(&j, "verdict", mb_knee_verdict(d->measured[l], (double)c->sys.reported[l]));
    mb_json_end_object(&j);
  }
  mb_json_end_object(&j);
  mb_json_end_object(&j);
  mb_json_finish(&j);
}

static void print_csv(FILE *f, const row_t *rows, size_t n) {
  fputs("bytes,page,ns_per_load,cycles_per_load,hugepage_fraction,ns_min,ns_p99,"
        "cycles_min,cycles_p99,hugetlb,fallback_reason,dtlb_load_misses_per_load,"
        "llc_load_misses_per_load,disturbed_reps\n", f);
  for (size_t i = 0; i < n; i++) {
    const row_t *r = &rows[i];
    mb_csv_int(f, 1, (long long)r->bytes);
    mb_csv_string(f, 0, kind_name[r->kind]);
    mb_csv_number(f, 0, r->ns_med);
    mb_csv_number(f, 0, r->cyc_med);
    mb_csv_number(f, 0, r->huge < 0 ? NAN : r->huge);
    mb_csv_number(f, 0, r->ns_min);
    mb_csv_number(f, 0, r->ns_p99);
    mb_csv_number(f, 0, r->cyc_min);
    mb_csv_number(f, 0, r->cyc_p99);
    mb_csv_int(f, 0, r->hugetlb);
    mb_csv_string(f, 0, r->why[0] ? r->why : NULL);
    for (int k = 0; k < MB_NCTR; k++) mb_csv_number(f, 0, r->ctr[k]);
    mb_csv_int(f, 0, r->disturbed);
    mb_csv_end_row(f);
  }
}

static void xtics(FILE *g, uint64_t lo, uint64_t hi) {
  char sz[32];
  fputs("set xtics (", g);
  int first = 1;
  for (uint64_t v = 1024; v <= hi * 2 && v; v *= 4) {
    if (v * 2 < lo) continue;
    fprintf(g, "%s\"%s\" %llu", first ? "" : ", ", mb_fmt_size(v, sz, sizeof sz),
            (unsigned long long)v);
    first = 0;
  }
  fputs(")\n", g);
}

static int plot(mb_ctx_t *c, const row_t *rows, size_t n, int have[2], const detect_t *d,
                uint64_t lo, uint64_t hi) {
  char dir[] = "/tmp/compactptr-membench.XXXXXX", data[64], script[64], sz[32];
  if (!mkdtemp(dir)) {
    fprintf(stderr, "compactptr-membench: mkdtemp: %s\n", strerror(errno));
    return -1;
  }
  snprintf(data, sizeof data, "%s/chase.dat", dir);
  snprintf(script, sizeof script, "%s/chase.gp", dir);
  FILE *df = fopen(data, "w"), *g = fopen(script, "w");
  if (!df || !g) {
    fprintf(stderr, "compactptr-membench: cannot write %s: %s\n", dir, strerror(errno));
    return -1;
  }
  for (int k = 0; k < 2; k++) {
    fprintf(df, "# %s pages: bytes ns_per_load ns_min ns_p99\n", kind_name[k]);
    int any = 0;
    for (size_t i = 0; i < n; i++)
      if (rows[i].kind == (mb_page_kind_t)k) {
        fprintf(df, "%llu %g %g %g\n", (unsigned long long)rows[i].bytes, rows[i].ns_med,
                rows[i].ns_min, rows[i].ns_p99);
        any = 1;
      }
    if (!any) fprintf(df, "%llu NaN NaN NaN\n", (unsigned long long)lo);
    fputs("\n\n", df);
  }
  fclose(df);
  const char *fmt = mb_plot_format(c->plot);
  if (strcmp(fmt, "svg") == 0)
    fputs("set terminal svg size 960,600 dynamic font 'Sans,12' background '#ffffff'\n", g);
  else
    fputs("set terminal pngcairo size 960,600 font 'Sans,11' background '#ffffff'\n", g);
  fprintf(g, "set output '%s'\n", c->plot);
  fprintf(g, "set title \"compactptr-membench chase: random pointer chase on %s\\n%s\" noenhanced\n",
          c->sys.cpu_model, c->cmdline);
  fputs("set logscale x 2\nset logscale y 2\nset grid xtics ytics mytics\n"
        "set xlabel 'working set (bytes)'\nset ylabel 'ns per dependent load'\n"
        "set key outside right top vertical box\nset mxtics 2\n", g);
  xtics(g, lo, hi);
  static const char *const lv[3] = {"L1d", "L2", "LLC"};
  int tag = 1;
  if (d->curve >= 0)
    for (int l = 0; l < 3; l++) {
      if (d->measured[l] > 0) {
        fprintf(g, "set arrow %d from %g, graph 0 to %g, graph 1 nohead dt 2 lw 1.5 lc rgb '#d62728'\n",
                tag, d->measured[l], d->measured[l]);
        fprintf(g, "set label %d \"%s knee %s\" at %g, graph 0.97 right rotate by 90 offset -0.6,0 tc rgb '#d62728' font ',10'\n",
                tag, lv[l], mb_fmt_size((uint64_t)d->measured[l], sz, sizeof sz), d->measured[l]);
        tag++;
      }
      uint64_t rep = c->sys.reported[l];
      if (rep && rep >= lo && rep <= hi) {
        fprintf(g, "set arrow %d from %llu, graph 0 to %llu, graph 1 nohead dt 3 lw 1 lc rgb '#7f7f7f'\n",
                tag, (unsigned long long)rep, (unsigned long long)rep);
        fprintf(g, "set label %d \"%s reported %s\" at %llu, graph 0.03 left rotate by 90 offset -0.6,0 tc rgb '#7f7f7f' font ',10'\n",
                tag, lv[l], mb_fmt_size(rep, sz, sizeof sz), (unsigned long long)rep);
        tag++;
      }
    }
  fputs("plot ", g);
  int first = 1;
  for (int k = 0; k < 2; k++) {
    if (!have[k]) continue;
    fprintf(g, "%s'%s' index %d using 1:3 with linespoints pt 7 ps 0.5 lw 2 lc %d title '%s min', "
               "'%s' index %d using 1:2 with lines lw 1 lc %d title '%s median'",
            first ? "" : ", ", data, k, k + 1, k ? "2 MiB" : "4 KiB", data, k, k + 1,
            k ? "2 MiB" : "4 KiB");
    first = 0;
  }
  fputc('\n', g);
  fclose(g);
  int rc = mb_run_gnuplot(script, c->plot);
  mb_plot_cleanup(dir, data, script);
  return rc;
}

int mb_cmd_chase(int argc, char **argv, mb_ctx_t *c) {
  enum { O_MIN = MB_OPT_FIRST_LOCAL, O_MAX, O_PAGES, O_LOADS, O_GROUP, O_STEPS, O_RISE };
  static const struct option opts[] = {
      MB_COMMON_LONGOPTS,
      {"min", required_argument, 0, O_MIN},
      {"max", required_argument, 0, O_MAX},
      {"pages", required_argument, 0, O_PAGES},
      {"loads", required_argument, 0, O_LOADS},
      {"group-pages", required_argument, 0, O_GROUP},
      {"steps", required_argument, 0, O_STEPS},
      {"knee-rise", required_argument, 0, O_RISE},
      {0, 0, 0, 0}};
  uint64_t lo = 4096, hi = 1ull << 30, loads = 1u << 14, group = 0, steps = 4, rise = 25;
  int have[2] = {1, 1};
  int o;
  optind = 1;
  opterr = 0;
  while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
    int rc;
    switch (o) {
    case 'h':
      fputs(chase_help, stdout);
      fputs(mb_common_help, stdout);
      return MB_EXIT_OK;
    case O_MIN: if (mb_size_opt(c, "--min", optarg, &lo)) return MB_EXIT_USAGE; break;
    case O_MAX: if (mb_size_opt(c, "--max", optarg, &hi)) return MB_EXIT_USAGE; break;
    /* A repetition must stay short: 2^24 loads take about 5 s at 300 ns
     * per load (a DRAM miss with a page walk), times --reps per size. */
    case O_LOADS: if (mb_uint_opt(c, "--loads", optarg, 16, 1ull << 24, &loads)) return MB_EXIT_USAGE; break;
    case O_GROUP: if (mb_uint_opt(c, "--group-pages", optarg, 0, 1u << 28, &group)) return MB_EXIT_USAGE; break;
    case O_STEPS: if (mb_uint_opt(c, "--steps", optarg, 1, 64, &steps)) return MB_EXIT_USAGE; break;
    case O_RISE: if (mb_uint_opt(c, "--knee-rise", optarg, 1, 1000, &rise)) return MB_EXIT_USAGE; break;
    case O_PAGES:
      if (strcasecmp(optarg, "4K") == 0) have[0] = 1, have[1] = 0;
      else if (strcasecmp(optarg, "2M") == 0) have[0] = 0, have[1] = 1;
      else if (strcasecmp(optarg, "both") == 0) have[0] = have[1] = 1;
      else return mb_usage_error(c, "--pages: '%s' is not 4K, 2M or both", optarg);
      break;
    case ':': return mb_usage_error(c, "option '%s' needs a value", argv[optind - 1]);
    case '?': return mb_usage_error(c, "unknown option '%s'", argv[optind - 1]);
    default:
      rc = mb_common_opt(c, o, optarg);
      if (rc) return MB_EXIT_USAGE;
    }
  }
  if (optind < argc) return mb_usage_error(c, "unexpected argument '%s'", argv[optind]);
  if (lo < 2 * MB_LINE) return mb_usage_error(c, "--min must be at least 128 bytes (two cache lines)");
  if (hi < lo) return mb_usage_error(c, "--max (%llu bytes) is smaller than --min (%llu bytes)",
                                     (unsigned long long)hi, (unsigned long long)lo);
  if (hi / MB_LINE > UINT32_MAX) return mb_usage_error(c, "--max is too large (at most 256G)");
  /* A group is G whole pages of every working set, the smallest too. */
  if (group && group > lo / MB_PAGE)
    return lo < MB_PAGE
               ? mb_usage_error(c, "--group-pages needs working sets of whole 4 KiB pages "
                                   "(--min is %llu bytes)", (unsigned long long)lo)
               : mb_usage_error(c, "--group-pages %llu is more than the %llu pages of the "
                                   "smallest working set (--min %llu bytes)",
                                (unsigned long long)group, (unsigned long long)(lo / MB_PAGE),
                                (unsigned long long)lo);
  if (!c->reps) c->reps = 31;
  uint64_t sizes[1024];
  size_t ns = mb_size_steps(lo, hi, (unsigned)steps, MB_LINE, sizes, 1024);
  if (ns == 1024 && sizes[ns - 1] < hi / MB_LINE * MB_LINE)
    return mb_usage_error(c, "too many sizes (at most 1024): fewer --steps or a "
                             "narrower --min..--max");
  int rc = mb_start(c);
  if (rc) return rc;

  row_t *rows = calloc(ns * 2, sizeof *rows);
  uint32_t *order = malloc((size_t)(sizes[ns - 1] / MB_LINE) * sizeof *order);
  if (!rows || !order) {
    fprintf(stderr, "compactptr-membench: out of memory for %zu sizes\n", ns);
    return MB_EXIT_FAIL;
  }
  mb_rng_t rng;
  mb_rng_seed(&rng, c->seed);
  size_t n = 0;
  char sz[32];
  for (size_t i = 0; i < ns; i++)
    for (int k = 0; k < 2; k++) {
      if (!have[k]) continue;
      row_t *r = &rows[n];
      r->bytes = sizes[i];
      r->kind = (mb_page_kind_t)k;
      mb_progress(c, "chase %s %s pages (%zu/%zu)", mb_fmt_size(sizes[i], sz, sizeof sz),
                  kind_name[k], i + 1, ns);
      if (run_one(c, r, order, loads, (size_t)group, &rng) != 0) {
        free(rows);
        free(order);
        return MB_EXIT_FAIL;
      }
      n++;
    }
  mb_progress(c, "%s", "");
  free(order);

  detect_t d;
  detect_knees(rows, n, have, (double)rise / 100, c->sys.reported, hi, &d);
  if (c->out == MB_OUT_JSON)
    print_json(stdout, c, rows, n, have, &d, lo, hi, loads, group, (double)rise / 100);
  else if (c->out == MB_OUT_CSV)
    print_csv(stdout, rows, n);
  else
    print_table(stdout, c, rows, n, have, &d);
  fflush(stdout);
  rc = MB_EXIT_OK;
  if (c->plot && plot(c, rows, n, have, &d, lo, hi) != 0) rc = MB_EXIT_FAIL;
  free(rows);
  return rc;
}
