/*
 * membench.h - internal interface of compactptr-membench.
 *
 * compactptr-membench measures the memory-hierarchy effects compact pointers
 * are meant to exploit: dependent-load latency against working-set size
 * (chase), access order over one buffer (stride), TLB reach and refill cost
 * (tlb), and the cost of single runtime operations with a cold or warm cache
 * (coldwarm).  See docs/membench.md.
 *
 * Cross-file prototypes, grouped by the file that defines them.  Everything
 * else is static in its file.  Units: sizes in bytes, times in nanoseconds
 * or TSC ticks ("cycles": reference cycles at the TSC frequency, not core
 * clock cycles), as named.
 */
#ifndef COMPACTPTR_MEMBENCH_H
#define COMPACTPTR_MEMBENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define MB_LINE 64u          /* cache-line size the benchmarks assume */
#define MB_PAGE 4096u        /* base page */
#define MB_HUGE (2u << 20)   /* transparent / hugetlb huge page */

/* Exit statuses. */
enum { MB_EXIT_OK = 0, MB_EXIT_FAIL = 1, MB_EXIT_USAGE = 2 };

/* ---- timing.c: TSC, CPUID, pinning, statistics --------------------------- */

/** Serialised TSC read at the start of a timed region: `lfence; rdtsc`.
 *  Earlier instructions complete before the read; later ones do not start. */
static inline uint64_t mb_tsc_begin(void) {
  uint32_t lo, hi;
  __asm__ __volatile__("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
  return ((uint64_t)hi << 32) | lo;
}
/** Set by mb_clock_init: the CPU has rdtscp (some hypervisors hide it). */
extern int mb_have_rdtscp;
/** Serialised TSC read at the end of a timed region: `rdtscp; lfence`.
 *  rdtscp waits for earlier loads; the lfence keeps later code out.
 *  Without rdtscp, `lfence; rdtsc; lfence`: the first lfence waits for
 *  every earlier instruction to complete locally (on AMD once the kernel
 *  makes lfence dispatch-serialising, as Linux does), which is what
 *  rdtscp's wait gives. */
static inline uint64_t mb_tsc_end(void) {
  uint32_t lo, hi, aux;
  if (__builtin_expect(mb_have_rdtscp, 1)) {
    __asm__ __volatile__("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux)::"memory");
  } else {
    __asm__ __volatile__("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi)::"memory");
  }
  return ((uint64_t)hi << 32) | lo;
}

/** CPUID leaf/subleaf into r[0..3] = eax, ebx, ecx, edx; 0 if unsupported. */
int mb_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4]);

typedef struct mb_clock {
  double tsc_hz;        /**< TSC ticks per second, calibrated */
  int invariant_tsc;    /**< CPUID 0x80000007 EDX bit 8 */
  int rdtscp;           /**< CPUID 0x80000001 EDX bit 27 */
  int hypervisor;       /**< CPUID 1 ECX bit 31 */
  double calib_spread;  /**< (max-min)/median of the calibration windows */
  double resolution;    /**< smallest non-zero step between two TSC reads */
} mb_clock_t;

/** Check the TSC and calibrate it against CLOCK_MONOTONIC over `windows`
 *  windows of `window_ms` each.  Returns 0, or -1 (message on stderr) if
 *  the CPU has no usable TSC. */
int mb_clock_init(mb_clock_t *c, unsigned windows, unsigned window_ms);
static inline double mb_ticks_to_ns(const mb_clock_t *c, double ticks) {
  return ticks * 1e9 / c->tsc_hz;
}

/** Pin the calling thread to `cpu` (-1: the CPU it is running on now).
 *  Returns the CPU pinned to, or -1 with errno set. */
int mb_pin(int cpu);

/** Context switches of the calling thread so far (voluntary and not):
 *  a timed repetition during which it changed was disturbed. */
long mb_switches(void);

typedef struct mb_stats {
  double min, median, p99, max, mean;
  size_t n;
} mb_stats_t;
/** Summary of n samples (sorted in place).  p99 is the nearest-rank
 *  percentile, so with fewer than 100 samples it is close to the max. */
mb_stats_t mb_stats(double *v, size_t n);
/** A net time: the median of v minus the median of the overhead o (both
 *  in cycles per unit), or NAN when that difference is below what the
 *  measurement resolves -- `step` (the clock's step per unit) or the
 *  spread of the two timings (median minus min, summed), whichever is
 *  larger; *res gets that resolution.  A difference of two noisy medians
 *  is never reported negative. */
double mb_net(mb_stats_t v, mb_stats_t o, double step, double *res);
/** A net time for a table: "%.*f" of v, or "<res" when v is NAN. */
const char *mb_fmt_net(char *buf, size_t len, double v, double res, int prec);

/* ---- counters.c: optional perf_event_open counters ---------------------- */

enum { MB_CTR_DTLB = 0, MB_CTR_LLC = 1, MB_NCTR = 2 };
typedef struct mb_counters {
  int fd[MB_NCTR];            /**< -1 when unavailable */
  char why[MB_NCTR][128];     /**< reason when unavailable */
  int enabled;                /**< counters were requested */
} mb_counters_t;
extern const char *const mb_counter_names[MB_NCTR];
/** Open the counters for the calling thread (if `enable`); failures are
 *  recorded per counter, never fatal. */
void mb_counters_open(mb_counters_t *c, int enable);
void mb_counters_close(mb_counters_t *c);
/** Read current values; unavailable counters read as -1. */
void mb_counters_read(const mb_counters_t *c, int64_t v[MB_NCTR]);
int mb_counter_ok(const mb_counters_t *c, int i);

/* ---- parse.c: sizes and numbers on the command line -------------------- */

/** Parse a size: a decimal integer with an optional binary suffix
 *  K, M, G, T (also KB/KiB, ..., case-insensitive) or B.  Returns 0, or -1
 *  with a message in err (errlen bytes). */
int mb_parse_size(const char *s, uint64_t *out, char *err, size_t errlen);
/** Parse a non-negative decimal integer within [lo, hi]. */
int mb_parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out,
                  char *err, size_t errlen);
/** Format a byte count compactly ("4K", "1.5M", "96K", "1G") into buf. */
const char *mb_fmt_size(uint64_t bytes, char *buf, size_t len);
/** Quarter-octave sizes from lo to hi inclusive, rounded to `align`
 *  (a power of two); duplicates removed.  Returns the count written to
 *  out (at most cap). */
size_t mb_size_steps(uint64_t lo, uint64_t hi, unsigned steps_per_octave,
                     uint64_t align, uint64_t *out, size_t cap);

/* ---- perm.c: random cyclic orders ---------------------------------------- */

typedef struct mb_rng { uint64_t s[4]; } mb_rng_t;
void mb_rng_seed(mb_rng_t *r, uint64_t seed);
uint64_t mb_rng_next(mb_rng_t *r);
/** Uniform integer in [0, n). */
uint64_t mb_rng_below(mb_rng_t *r, uint64_t n);
void mb_shuffle_u32(mb_rng_t *r, uint32_t *a, size_t n);

/** Visiting order of `nlines` cache lines: a permutation of 0..nlines-1.
 *  group_pages == 0: uniformly random order of all lines.
 *  group_pages == G > 0 (TLB locality): the buffer's 4 KiB pages are cut
 *  into groups of G consecutive pages; groups are visited in random order
 *  and, inside a group, its lines in random order, so at most G pages are
 *  live in the TLB at a time.  lines_per_page is MB_PAGE / line size. */
void mb_line_order(mb_rng_t *r, uint32_t *order, size_t nlines,
                   size_t lines_per_page, size_t group_pages);
/** Link the lines of buf (line size `line`) into one pointer cycle
 *  following `order`: the first word of line order[i] points to line
 *  order[i+1], the last to the first. */
void mb_link_cycle(void *buf, size_t line, const uint32_t *order, size_t n);

/* ---- knee.c: knee detection ---------------------------------------------- */

typedef struct mb_knee {
  size_t index;        /**< last point of the plateau before the rise */
  double x;            /**< its x (bytes or pages) */
  double before, after;/**< plateau levels either side */
} mb_knee_t;
/** Find knees in a curve sampled at increasing x: the last point of each
 *  plateau (>= 3 points within +-0.6 rise of their median) that is followed
 *  by a plateau higher by more than `rise` (relative, e.g. 0.25).  Returns
 *  the number of knees written (at most cap). */
size_t mb_find_knees(const double *x, const double *y, size_t n, double rise,
                     mb_knee_t *out, size_t cap);
/** Verdict on a measured size against a reported one: "agree" when within
 *  a factor of 2, "disagree" otherwise, "n/a" if either is unknown. */
const char *mb_knee_verdict(double measured, double reported);

/* ---- emit.c: JSON and CSV writers ---------------------------------------- */

#define MB_JSON_MAXDEPTH 32
typedef struct mb_json {
  FILE *f;
  int depth;
  int count[MB_JSON_MAXDEPTH]; /**< members written at each depth */
  int pretty;
} mb_json_t;
void mb_json_init(mb_json_t *j, FILE *f, int pretty);
/** Containers and values.  `key` names the member inside an object and
 *  must be NULL inside an array or at top level. */
void mb_json_begin_object(mb_json_t *j, const char *key);
void mb_json_end_object(mb_json_t *j);
void mb_json_begin_array(mb_json_t *j, const char *key);
void mb_json_end_array(mb_json_t *j);
void mb_json_string(mb_json_t *j, const char *key, const char *s); /* NULL: null */
void mb_json_number(mb_json_t *j, const char *key, double v); /* non-finite: null */
void mb_json_int(mb_json_t *j, const char *key, long long v);
void mb_json_bool(mb_json_t *j, const char *key, int v);
void mb_json_null(mb_json_t *j, const char *key);
/** Finish the document (newline at top level). */
void mb_json_finish(mb_json_t *j);

/** CSV (RFC 4180): fields are quoted when they contain a comma, quote,
 *  CR or LF; quotes are doubled.  `first` is 1 for the first field of a
 *  row; mb_csv_end_row ends it with "\n". */
void mb_csv_string(FILE *f, int first, const char *s); /* NULL: empty */
void mb_csv_number(FILE *f, int first, double v);      /* non-finite: empty */
void mb_csv_int(FILE *f, int first, long long v);
void mb_csv_end_row(FILE *f);

/* ---- sysinfo.c: what the system reports ---------------------------------- */

typedef struct mb_cache_info {
  /* Index 0: L1d, 1: L2, 2: LLC (L3 if present, else L2).  0 = unknown. */
  uint64_t sysfs[3], sysconf[3], cpuid[3];
  uint64_t reported[3];          /**< first known of sysfs, sysconf, cpuid */
  const char *reported_src[3];   /**< "sysfs", "sysconf", "cpuid" or NULL */
  int sources_disagree[3];       /**< known sources give different sizes */
  /* TLB entries for 4 KiB pages from CPUID; 0 = unknown. */
  unsigned dtlb_l1_4k, dtlb_l2_4k, dtlb_l1_2m, dtlb_l2_2m;
  char cpu_model[64];
  char thp_enabled[32];          /**< the bracketed word of .../enabled */
  char thp_defrag[32];
  uint64_t hugetlb_free;         /**< free 2 MiB hugetlb pages */
} mb_sysinfo_t;
void mb_sysinfo_read(mb_sysinfo_t *s);
/** Read the bracketed choice of a sysfs "a [b] c" file into buf ("" if
 *  absent). */
void mb_read_bracketed(const char *path, char *buf, size_t len);

/* ---- mem.c: buffers with a page kind ------------------------------------ */

typedef enum { MB_PAGES_4K = 0, MB_PAGES_2M = 1 } mb_page_kind_t;
typedef struct mb_buf {
  char *base;           /**< usable, 2 MiB aligned for MB_PAGES_2M */
  size_t len;           /**< bytes asked for */
  char *map;            /**< the mapping (for munmap) */
  size_t maplen;
  mb_page_kind_t kind;
  int hugetlb;          /**< backed by MAP_HUGETLB */
  double huge_fraction; /**< of the mapping backed by 2 MiB pages */
  char why[256];        /**< why huge_fraction < 1 for MB_PAGES_2M */
} mb_buf_t;
/** Map, advise and touch a buffer of len bytes.  Returns 0 or -1 (errno,
 *  message on stderr). */
int mb_buf_alloc(mb_buf_t *b, size_t len, mb_page_kind_t kind,
                 const mb_sysinfo_t *si);
void mb_buf_free(mb_buf_t *b);
/** Bytes of [addr, addr+len) mapping's VMAs backed by huge pages according
 *  to /proc/self/smaps (AnonHugePages, or hugetlb mappings), and the
 *  mapping size, summed over the VMAs that overlap the range.  -1 if smaps
 *  cannot be read. */
int mb_smaps_huge(const void *addr, size_t len, uint64_t *huge, uint64_t *total);
/** Evict the caches by reading a buffer of `bytes` (allocated once). */
void mb_sweep_caches(size_t bytes);
/** clflush every line of [p, p+len). */
void mb_flush_range(const void *p, size_t len);

/* ---- main.c: the common context ---------------------------------------- */

typedef enum { MB_OUT_TABLE = 0, MB_OUT_JSON, MB_OUT_CSV } mb_out_t;
typedef struct mb_ctx {
  mb_out_t out;
  const char *plot;       /**< --plot FILE or NULL */
  int cpu;                /**< pinned CPU, -1 if not pinned */
  unsigned reps;          /**< 0 until set: subcommands pick a default */
  uint64_t seed;
  int progress;           /**< print progress on stderr */
  int want_counters;
  mb_clock_t clock;
  mb_sysinfo_t sys;
  mb_counters_t ctr;
  const char *command;    /**< the subcommand */
  char cmdline[512];      /**< argv joined, for the report */
  char loadavg[64];       /**< /proc/loadavg at start: label busy runs */
} mb_ctx_t;

/* Options every subcommand accepts (getopt_long ids). */
enum {
  MB_OPT_JSON = 1000, MB_OPT_CSV, MB_OPT_PLOT, MB_OPT_REPS, MB_OPT_CPU,
  MB_OPT_SEED, MB_OPT_NOCTR, MB_OPT_QUIET, MB_OPT_FIRST_LOCAL
};
#define MB_COMMON_LONGOPTS                                                     \
  {"json", no_argument, 0, MB_OPT_JSON}, {"csv", no_argument, 0, MB_OPT_CSV},  \
      {"plot", required_argument, 0, MB_OPT_PLOT},                             \
      {"reps", required_argument, 0, MB_OPT_REPS},                             \
      {"cpu", required_argument, 0, MB_OPT_CPU},                               \
      {"seed", required_argument, 0, MB_OPT_SEED},                             \
      {"no-counters", no_argument, 0, MB_OPT_NOCTR},                           \
      {"quiet", no_argument, 0, MB_OPT_QUIET},                                 \
      {"help", no_argument, 0, 'h'}
/** Help text for the common options. */
extern const char mb_common_help[];
/** Handle a common option: 0 if handled, 1 if not a common option, -1 on
 *  a bad value (message printed). */
int mb_common_opt(mb_ctx_t *c, int opt, const char *arg);
/** Print "compactptr-membench CMD: MESSAGE" and a pointer to --help on
 *  stderr; returns MB_EXIT_USAGE. */
int mb_usage_error(const mb_ctx_t *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/** After option parsing: pin, calibrate the TSC, read the system, open
 *  counters.  Returns 0 or MB_EXIT_FAIL. */
int mb_start(mb_ctx_t *c);
/** Parse a size option into *out, or print a usage error. */
int mb_size_opt(const mb_ctx_t *c, const char *opt, const char *arg, uint64_t *out);
int mb_uint_opt(const mb_ctx_t *c, const char *opt, const char *arg,
                uint64_t lo, uint64_t hi, uint64_t *out);
/** A comma-separated list option: 0, or a usage error if it is empty or
 *  has an empty item ("4K,,16K", ",4K", "4K,"), which strtok_r would
 *  silently drop. */
int mb_list_opt(const mb_ctx_t *c, const char *opt, const char *arg);

/** Write the JSON members shared by every subcommand: tool, version,
 *  subcommand, command line, clock, counters, system. */
void mb_json_common(mb_json_t *j, const mb_ctx_t *c);
/** Print the human header (machine, clock, counters) to f. */
void mb_table_header(FILE *f, const mb_ctx_t *c);
void mb_progress(const mb_ctx_t *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/** Run gnuplot on `script` writing `out` (the terminal chosen from its
 *  extension).  Returns 0, or -1 with a message on stderr. */
int mb_run_gnuplot(const char *script, const char *out);
/** Remove the plot's temporary files, unless COMPACTPTR_MEMBENCH_KEEP_PLOT
 *  is set (then their directory is named on stderr). */
void mb_plot_cleanup(const char *dir, const char *data, const char *script);
/** "svg", "png" or NULL from a file name. */
const char *mb_plot_format(const char *file);

/* ---- the subcommands: chase.c stride.c tlb.c coldwarm.c walk.c ----------- */

int mb_cmd_chase(int argc, char **argv, mb_ctx_t *c);
int mb_cmd_stride(int argc, char **argv, mb_ctx_t *c);
int mb_cmd_tlb(int argc, char **argv, mb_ctx_t *c);
int mb_cmd_coldwarm(int argc, char **argv, mb_ctx_t *c);
int mb_cmd_walk(int argc, char **argv, mb_ctx_t *c);

/* ---- coldwarm_runtime.c ------------------------------------------------- */

/** One operation timed by coldwarm.  `run` performs it once on `ctx`;
 *  `flush` evicts what it touches (data and code) with clflush; `after`
 *  (may be NULL) undoes side effects outside the timed region. */
typedef struct mb_op {
  const char *name;
  const char *what;       /**< one-line description */
  void (*run)(void *ctx);
  void (*flush)(void *ctx);
  void (*after)(void *ctx);
  void *ctx;
} mb_op_t;
/** The runtime's operations: writes up to cap ops, returns the count, or
 *  0 with `why` set when the runtime is not linked in. */
size_t mb_runtime_ops(mb_op_t *ops, size_t cap, const char **why);

#endif
