/*
 * main.c - compactptr-membench: subcommand dispatch, the options every
 * subcommand shares, the common report header (human and JSON) and the
 * gnuplot runner.
 *
 * Exit status: 0 success, 1 a measurement could not run (mapping failed,
 * gnuplot failed, no TSC), 2 bad command line.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "membench.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MB_VERSION
#define MB_VERSION "unknown"
#endif

extern char **environ;

const char mb_common_help[] =
    "Common options:\n"
    "  --json          print one JSON object (see docs/membench.md)\n"
    "  --csv           print CSV: a header row, then one row per result\n"
    "                  (default output: a human-readable table)\n"
    "  --plot FILE     also draw the curves with gnuplot into FILE.svg or\n"
    "                  FILE.png (chase and tlb only)\n"
    "  --reps N        timed repetitions per point (min/median/p99 reported)\n"
    "  --cpu N|none    pin to CPU N (default: the CPU the tool starts on)\n"
    "  --seed N        seed of the random orders (default 1; printed)\n"
    "  --no-counters   do not try perf_event_open (dTLB/LLC load misses);\n"
    "                  refused counters are reported as unavailable, not 0\n"
    "  --quiet         no progress messages on stderr\n"
    "  -h, --help      this help\n"
    "Sizes take a binary suffix: 4K = 4096, 64M, 1G (K/KB/KiB alike).\n"
    "Exit status: 0 success, 1 measurement failure, 2 bad command line.\n";

static const char main_help[] =
    "Usage: compactptr-membench COMMAND [OPTIONS]\n"
    "Cache and TLB microbenchmarks: why compact pointers pay.\n"
    "\n"
    "Commands:\n"
    "  chase      dependent-load latency (ns and TSC cycles per load) against\n"
    "             working-set size, with 4 KiB and 2 MiB pages; knees\n"
    "  stride     one buffer touched in linear, page-stride and line-stride\n"
    "             order (ns per touch, loop overhead subtracted)\n"
    "  tlb        TLB reach at constant cache footprint, refill cost after a\n"
    "             flush, process vs thread switch cost through a pipe\n"
    "  coldwarm   one runtime operation (handle decode, allocation, dispatch\n"
    "             call, page-map lookup) with caches warm vs clflush-evicted\n"
    "  walk       an address-ordered list walked through 64-bit pointers or\n"
    "             32-bit links at one stride (ns per node)\n"
    "\n"
    "Run 'compactptr-membench COMMAND --help' for a command's options.\n"
    "'cycles' are TSC reference cycles (constant rate), not core clocks.\n";

int mb_usage_error(const mb_ctx_t *c, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "compactptr-membench %s: ", c->command ? c->command : "");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\nTry 'compactptr-membench %s --help'.\n",
          c->command ? c->command : "");
  return MB_EXIT_USAGE;
}

int mb_size_opt(const mb_ctx_t *c, const char *opt, const char *arg, uint64_t *out) {
  char err[200];
  if (mb_parse_size(arg, out, err, sizeof err) != 0)
    return mb_usage_error(c, "%s: %s", opt, err);
  return 0;
}

int mb_uint_opt(const mb_ctx_t *c, const char *opt, const char *arg,
                uint64_t lo, uint64_t hi, uint64_t *out) {
  char err[200];
  if (mb_parse_uint(arg, lo, hi, out, err, sizeof err) != 0)
    return mb_usage_error(c, "%s: %s", opt, err);
  return 0;
}

double mb_net(mb_stats_t v, mb_stats_t o, double step, double *res) {
  double jitter = (v.median - v.min) + (o.median - o.min);
  *res = step > jitter ? step : jitter;
  double d = v.median - o.median;
  return d >= *res ? d : NAN;
}

const char *mb_fmt_net(char *buf, size_t len, double v, double res, int prec) {
  if (isnan(v))
    snprintf(buf, len, "<%.*f", prec, res);
  else
    snprintf(buf, len, "%.*f", prec, v);
  return buf;
}

int mb_list_opt(const mb_ctx_t *c, const char *opt, const char *arg) {
  size_t n = strlen(arg);
  if (n == 0 || arg[0] == ',' || arg[n - 1] == ',' || strstr(arg, ",,"))
    return mb_usage_error(c, "%s: '%s' has an empty item", opt, arg);
  return 0;
}

const char *mb_plot_format(const char *file) {
  const char *dot = strrchr(file, '.');
  if (!dot) return NULL;
  if (strcasecmp(dot, ".svg") == 0) return "svg";
  if (strcasecmp(dot, ".png") == 0) return "png";
  return NULL;
}

int mb_common_opt(mb_ctx_t *c, int opt, const char *arg) {
  uint64_t v;
  switch (opt) {
  case MB_OPT_JSON:
  case MB_OPT_CSV: {
    /* One output: the last of two formats silently winning hid the other. */
    mb_out_t want = opt == MB_OPT_JSON ? MB_OUT_JSON : MB_OUT_CSV;
    if (c->out != MB_OUT_TABLE && c->out != want) {
      mb_usage_error(c, "--json and --csv: give one");
      return -1;
    }
    c->out = want;
    return 0;
  }
  case MB_OPT_PLOT:
    if (!mb_plot_format(arg)) {
      mb_usage_error(c, "--plot: '%s' must end in .svg or .png", arg);
      return -1;
    }
    c->plot = arg;
    return 0;
  case MB_OPT_REPS:
    if (mb_uint_opt(c, "--reps", arg, 1, 100000, &v)) return -1;
    c->reps = (unsigned)v;
    return 0;
  case MB_OPT_CPU:
    if (strcmp(arg, "none") == 0) {
      c->cpu = -2;
      return 0;
    }
    if (mb_uint_opt(c, "--cpu", arg, 0, 4095, &v)) return -1;
    c->cpu = (int)v;
    return 0;
  case MB_OPT_SEED:
    if (mb_uint_opt(c, "--seed", arg, 0, UINT64_MAX, &v)) return -1;
    c->seed = v;
    return 0;
  case MB_OPT_NOCTR: c->want_counters = 0; return 0;
  case MB_OPT_QUIET: c->progress = 0; return 0;
  default: return 1;
  }
}

int mb_start(mb_ctx_t *c) {
  if (c->cpu != -2) {
    int got = mb_pin(c->cpu);
    if (got < 0) {
      fprintf(stderr, "compactptr-membench: cannot pin to CPU %d: %s (online CPUs: %ld; "
                      "--cpu none to run unpinned)\n",
              c->cpu, strerror(errno), sysconf(_SC_NPROCESSORS_ONLN));
      return MB_EXIT_FAIL;
    }
    c->cpu = got;
  } else {
    c->cpu = -1;
  }
  if (mb_clock_init(&c->clock, 5, 20) != 0) return MB_EXIT_FAIL;
  mb_sysinfo_read(&c->sys);
  FILE *la = fopen("/proc/loadavg", "r");
  if (la) {
    if (fgets(c->loadavg, sizeof c->loadavg, la)) {
      /* The 1, 5 and 15 minute averages only. */
      char *p = c->loadavg;
      for (int k = 0; k < 3 && p; k++) p = strchr(p + (k > 0), ' ');
      if (p) *p = 0;
      c->loadavg[strcspn(c->loadavg, "\n")] = 0;
    }
    fclose(la);
  }
  mb_counters_open(&c->ctr, c->want_counters);
  if (!c->clock.invariant_tsc)
    fprintf(stderr, "compactptr-membench: warning: CPUID does not report an "
                    "invariant TSC; TSC-based times may drift with frequency "
                    "changes or across sleep states\n");
  return 0;
}

void mb_progress(const mb_ctx_t *c, const char *fmt, ...) {
  if (!c->progress) return;
  va_list ap;
  va_start(ap, fmt);
  fputs("\r\033[K", stderr);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fflush(stderr);
}

void mb_json_common(mb_json_t *j, const mb_ctx_t *c) {
  static const char *const lv[3] = {"l1d", "l2", "llc"};
  mb_json_string(j, "tool", "compactptr-membench");
  mb_json_string(j, "version", MB_VERSION);
  mb_json_string(j, "subcommand", c->command);
  mb_json_string(j, "command_line", c->cmdline);
  mb_json_int(j, "seed", (long long)c->seed);
  mb_json_int(j, "reps", c->reps);
  mb_json_begin_object(j, "machine");
  mb_json_string(j, "cpu_model", c->sys.cpu_model);
  mb_json_bool(j, "hypervisor", c->clock.hypervisor);
  mb_json_number(j, "tsc_hz", c->clock.tsc_hz);
  mb_json_bool(j, "invariant_tsc", c->clock.invariant_tsc);
  mb_json_bool(j, "rdtscp", c->clock.rdtscp);
  mb_json_string(j, "tsc_calibration", "CLOCK_MONOTONIC");
  mb_json_number(j, "tsc_calibration_spread", c->clock.calib_spread);
  mb_json_number(j, "tsc_resolution_ticks", c->clock.resolution);
  if (c->cpu >= 0)
    mb_json_int(j, "pinned_cpu", c->cpu);
  else
    mb_json_null(j, "pinned_cpu");
  mb_json_string(j, "thp_enabled", c->sys.thp_enabled[0] ? c->sys.thp_enabled : NULL);
  mb_json_string(j, "thp_defrag", c->sys.thp_defrag[0] ? c->sys.thp_defrag : NULL);
  mb_json_int(j, "hugetlb_free_pages", (long long)c->sys.hugetlb_free);
  mb_json_string(j, "loadavg", c->loadavg[0] ? c->loadavg : NULL);
  {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    mb_json_int(j, "online_cpus", n);
  }
  mb_json_end_object(j);
  mb_json_begin_object(j, "caches");
  for (int l = 0; l < 3; l++) {
    mb_json_begin_object(j, lv[l]);
    if (c->sys.reported[l])
      mb_json_int(j, "reported_bytes", (long long)c->sys.reported[l]);
    else
      mb_json_null(j, "reported_bytes");
    mb_json_string(j, "source", c->sys.reported_src[l]);
    const uint64_t *src[3] = {c->sys.sysfs, c->sys.sysconf, c->sys.cpuid};
    static const char *const sn[3] = {"sysfs", "sysconf", "cpuid"};
    for (int k = 0; k < 3; k++)
      if (src[k][l])
        mb_json_int(j, sn[k], (long long)src[k][l]);
      else
        mb_json_null(j, sn[k]);
    mb_json_bool(j, "sources_disagree", c->sys.sources_disagree[l]);
    mb_json_end_object(j);
  }
  mb_json_end_object(j);
  mb_json_begin_object(j, "tlb_entries");
  mb_json_int(j, "l1_4k", c->sys.dtlb_l1_4k);
  mb_json_int(j, "l2_4k", c->sys.dtlb_l2_4k);
  mb_json_int(j, "l1_2m", c->sys.dtlb_l1_2m);
  mb_json_int(j, "l2_2m", c->sys.dtlb_l2_2m);
  mb_json_string(j, "source", "cpuid");
  mb_json_end_object(j);
  mb_json_begin_object(j, "counters");
  for (int i = 0; i < MB_NCTR; i++) {
    mb_json_begin_object(j, mb_counter_names[i]);
    mb_json_bool(j, "available", mb_counter_ok(&c->ctr, i));
    mb_json_string(j, "reason", mb_counter_ok(&c->ctr, i) ? NULL : c->ctr.why[i]);
    mb_json_end_object(j);
  }
  mb_json_end_object(j);
}

void mb_table_header(FILE *f, const mb_ctx_t *c) {
  char a[32], b[32], d[32];
  fprintf(f, "compactptr-membench %s on %s%s, %ld CPUs, load average %s\n", c->command,
          c->sys.cpu_model, c->clock.hypervisor ? " (virtual machine)" : "",
          sysconf(_SC_NPROCESSORS_ONLN), c->loadavg[0] ? c->loadavg : "?");
  fprintf(f, "TSC %.1f MHz (calibrated against CLOCK_MONOTONIC, spread %.3f%%; "
             "resolution %.0f ticks), invariant TSC: %s; pinned to CPU %s%s; seed %llu; %u reps\n",
          c->clock.tsc_hz / 1e6, 100 * c->clock.calib_spread, c->clock.resolution,
          c->clock.invariant_tsc ? "yes" : "NO",
          c->cpu >= 0 ? "" : "none", c->cpu >= 0 ? (snprintf(a, sizeof a, "%d", c->cpu), a) : "",
          (unsigned long long)c->seed, c->reps);
  fprintf(f, "caches (%s/%s/%s): L1d %s, L2 %s, LLC %s%s\n",
          c->sys.reported_src[0] ? c->sys.reported_src[0] : "-",
          c->sys.reported_src[1] ? c->sys.reported_src[1] : "-",
          c->sys.reported_src[2] ? c->sys.reported_src[2] : "-",
          c->sys.reported[0] ? mb_fmt_size(c->sys.reported[0], a, sizeof a) : "?",
          c->sys.reported[1] ? mb_fmt_size(c->sys.reported[1], b, sizeof b) : "?",
          c->sys.reported[2] ? mb_fmt_size(c->sys.reported[2], d, sizeof d) : "?",
          (c->sys.sources_disagree[0] || c->sys.sources_disagree[1] ||
           c->sys.sources_disagree[2])
              ? "  [sources disagree, see below]"
              : "");
  static const char *const lvname[3] = {"L1d", "L2", "LLC"};
  for (int l = 0; l < 3; l++) {
    if (!c->sys.sources_disagree[l]) continue;
    const uint64_t *src[3] = {c->sys.sysfs, c->sys.sysconf, c->sys.cpuid};
    static const char *const sn[3] = {"sysfs", "sysconf", "cpuid"};
    fprintf(f, "note: %s sources disagree:", lvname[l]);
    for (int k = 0; k < 3; k++)
      fprintf(f, " %s %s", sn[k], src[k][l] ? mb_fmt_size(src[k][l], a, sizeof a) : "-");
    fprintf(f, "; using %s\n", c->sys.reported_src[l]);
  }
  fprintf(f, "dTLB entries (cpuid): L1 %u x 4K, %u x 2M; L2 %u x 4K, %u x 2M; "
             "THP %s (defrag %s); hugetlb free pages %llu\n",
          c->sys.dtlb_l1_4k, c->sys.dtlb_l1_2m, c->sys.dtlb_l2_4k, c->sys.dtlb_l2_2m,
          c->sys.thp_enabled[0] ? c->sys.thp_enabled : "absent",
          c->sys.thp_defrag[0] ? c->sys.thp_defrag : "-",
          (unsigned long long)c->sys.hugetlb_free);
  for (int i = 0; i < MB_NCTR; i++)
    fprintf(f, "counter %s: %s\n", mb_counter_names[i],
            mb_counter_ok(&c->ctr, i) ? "available" : c->ctr.why[i]);
  fputc('\n', f);
}

static int find_in_path(const char *name, char *out, size_t len) {
  if (strchr(name, '/')) {
    snprintf(out, len, "%s", name);
    return access(out, X_OK) == 0 ? 0 : -1;
  }
  const char *path = getenv("PATH");
  if (!path) return -1;
  while (*path) {
    size_t n = strcspn(path, ":");
    snprintf(out, len, "%.*s/%s", (int)n, path, name);
    struct stat st;
    if (n && stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
      return 0;
    path += n;
    if (*path == ':') path++;
  }
  return -1;
}

int mb_run_gnuplot(const char *script, const char *out) {
  const char *gp = getenv("COMPACTPTR_MEMBENCH_GNUPLOT");
  char exe[4096];
  if (!gp || !*gp) gp = "gnuplot";
  if (find_in_path(gp, exe, sizeof exe) != 0) {
    fprintf(stderr,
            "compactptr-membench: --plot needs gnuplot, and '%s' was not found "
            "(Debian: apt-get install gnuplot-nox); the measurements were "
            "printed, the plot %s was not written\n",
            gp, out);
    return -1;
  }
  char *argv[] = {exe, (char *)script, NULL};
  pid_t pid;
  int rc = posix_spawn(&pid, exe, NULL, NULL, argv, environ);
  if (rc != 0) {
    fprintf(stderr, "compactptr-membench: cannot run %s: %s\n", exe, strerror(rc));
    return -1;
  }
  int st;
  if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    fprintf(stderr, "compactptr-membench: gnuplot failed writing %s (script %s)\n",
            out, script);
    return -1;
  }
  return 0;
}

void mb_plot_cleanup(const char *dir, const char *data, const char *script) {
  const char *keep = getenv("COMPACTPTR_MEMBENCH_KEEP_PLOT");
  if (keep && *keep && strcmp(keep, "0") != 0) {
    fprintf(stderr, "compactptr-membench: plot data and script kept in %s\n", dir);
    return;
  }
  unlink(data);
  unlink(script);
  rmdir(dir);
}

int main(int argc, char **argv) {
  static const struct {
    const char *name;
    int (*fn)(int, char **, mb_ctx_t *);
  } cmds[] = {{"chase", mb_cmd_chase},
              {"stride", mb_cmd_stride},
              {"tlb", mb_cmd_tlb},
              {"coldwarm", mb_cmd_coldwarm},
              {"walk", mb_cmd_walk}};
  if (argc < 2) {
    fputs(main_help, stderr);
    return MB_EXIT_USAGE;
  }
  if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
      strcmp(argv[1], "help") == 0) {
    fputs(main_help, stdout);
    fputc('\n', stdout);
    fputs(mb_common_help, stdout);
    return MB_EXIT_OK;
  }
  if (strcmp(argv[1], "--version") == 0) {
    printf("compactptr-membench %s\n", MB_VERSION);
    return MB_EXIT_OK;
  }
  for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
    if (strcmp(argv[1], cmds[i].name) != 0) continue;
    mb_ctx_t c;
    memset(&c, 0, sizeof c);
    c.command = cmds[i].name;
    c.seed = 1;
    c.want_counters = 1;
    c.progress = isatty(2);
    size_t off = 0;
    for (int a = 0; a < argc && off + 1 < sizeof c.cmdline; a++)
      off += (size_t)snprintf(c.cmdline + off, sizeof c.cmdline - off, "%s%s",
                              a ? " " : "", a ? argv[a] : "compactptr-membench");
    if (off >= sizeof c.cmdline) off = sizeof c.cmdline - 1;
    int rc = cmds[i].fn(argc - 1, argv + 1, &c);
    mb_counters_close(&c.ctr);
    return rc;
  }
  fprintf(stderr,
          "compactptr-membench: unknown command '%s' (expected chase, stride, "
          "tlb, coldwarm or walk)\nTry 'compactptr-membench --help'.\n",
          argv[1]);
  return MB_EXIT_USAGE;
}
