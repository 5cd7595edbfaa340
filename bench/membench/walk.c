/*
 * walk.c - `compactptr-membench walk`: a linked list laid out in address
 * order (what a program that allocates its nodes one after another and
 * links them in that order walks), followed from its head to NULL, with
 * the link held three ways at the same node stride:
 *
 *   ptr64      a 64-bit pointer, loaded and used as the next address;
 *   ptr64-alu  the same pointer passed through one ALU instruction (an AND
 *              with all ones) between the load and the next address;
 *   u32        a 32-bit value zero-extended (the node lies below 4 GiB, so
 *              the value is its address: what an unscaled compact handle
 *              is, and what the plugin's compact-only code loads).
 *
 * Why: on the processors this project has been measured on (an AMD family
 * 26 and an Intel family 6 model 167), a walk whose next address comes
 * straight from a 64-bit load runs about 1.5 times as fast per node as the
 * same walk through a 32-bit load, or through a 64-bit load and an ALU
 * instruction, once the list outgrows the caches; inside L1d they cost the
 * same.  The processor speeds up that one shape, so an address-ordered
 * walk of handles can lose to one of native pointers although it reads
 * half the bytes.  `walk` shows it without the plugin: the loops are
 * inline assembly over one buffer in the compact arena, the same nodes.
 *
 * Each repetition walks the whole list once and adds up every node's
 * 32-bit value (the walk a list-sum does); ns per node is the median of
 * the repetitions.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "membench.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#define COMPACTPTR_RUNTIME 1
#include <compactptr.h>

static const char walk_help[] =
    "Usage: compactptr-membench walk [--nodes N] [--strides LIST] [OPTIONS]\n"
    "Walk a linked list laid out in address order, from its head to NULL,\n"
    "with each node's link held as a 64-bit pointer used as is (ptr64), the\n"
    "same pointer passed through one ALU instruction (ptr64-alu), or a\n"
    "32-bit value zero-extended (u32: the nodes lie below 4 GiB, so the\n"
    "value is the address, as an unscaled compact handle is).  Same buffer,\n"
    "same nodes, same stride, one buffer in the compact arena (no u32 rows\n"
    "where the arena lies above 4 GiB); x86-64 only.\n"
    "\n"
    "  --nodes N         nodes in the list (default 4194304; 1024 to\n"
    "                    268435456, at most 1 GiB of nodes in all)\n"
    "  --strides LIST    comma-separated node sizes in bytes (default\n"
    "                    8,16,32): multiples of 8 from 8 to 4096; ptr64\n"
    "                    needs 16 or more (value, then the pointer at +8),\n"
    "                    u32 keeps its link at +4\n"
    "Default --reps 5.\n"
    "\n"
    "Output: per stride and link, ns and TSC cycles per node (median of the\n"
    "repetitions; min in --json/--csv) and the ratio to ptr64 at the same\n"
    "stride (null where there is no ptr64 row).  Exit status 1 if the\n"
    "arena has no room for the list.\n"
    "\n";

enum { LINK_PTR64, LINK_PTR64_ALU, LINK_U32, NLINK };
static const char *const link_name[NLINK] = {"ptr64", "ptr64-alu", "u32"};

typedef struct wrow {
  uint32_t stride;
  int link;
  double ns, ns_min, cyc, ratio;
} wrow_t;

static volatile int64_t sink;

/* Raw bytes in the compact arena (an array of them holds the list). */
static cp_field_desc_t walk_byte = {"byte", 0, 0, CP_FIELD_BYTES, 1, 1, NULL};
static cp_type_desc_t walk_bytes = {CP_ABI_VERSION, CP_GRANULE_SHIFT,
                                    CP_BUILD_SWITCHABLE, "mb_walk_bytes", 4, 4,
                                    4, 4, 1, &walk_byte, &cp__module, NULL};

/* The three walks.  Assembly, so the compiler can neither fold the ALU
 * instruction away nor turn a 32-bit load into a 64-bit one. */
static __attribute__((noinline)) int64_t walk_ptr64(uintptr_t q) {
  int64_t s = 0;
  while (q) {
    s += *(const int32_t *)q;
    __asm__ volatile("movq 8(%0), %0" : "+r"(q)::"memory");
  }
  return s;
}
static __attribute__((noinline)) int64_t walk_ptr64_alu(uintptr_t q) {
  int64_t s = 0;
  while (q) {
    s += *(const int32_t *)q;
    __asm__ volatile("movq 8(%0), %0\n\tandq $-1, %0" : "+r"(q)::"memory", "cc");
  }
  return s;
}
static __attribute__((noinline)) int64_t walk_u32(uintptr_t q) {
  int64_t s = 0;
  while (q) {
    s += *(const int32_t *)q;
    __asm__ volatile("movl 4(%0), %k0" : "+r"(q)::"memory");
  }
  return s;
}

/* Links nodes 0..n-1 of stride bytes in address order for `link`, each
 * holding the value i % 1000 at offset 0; returns the expected sum. */
static int64_t link_list(char *b, uint64_t n, uint32_t stride, int link) {
  int64_t sum = 0;
  for (uint64_t i = 0; i < n; i++) {
    char *p = b + i * stride;
    uintptr_t next = i + 1 < n ? (uintptr_t)(p + stride) : 0;
    *(int32_t *)p = (int32_t)(i % 1000);
    sum += (int64_t)(i % 1000);
    if (link == LINK_U32)
      *(uint32_t *)(p + 4) = (uint32_t)next;
    else
      *(uint64_t *)(p + 8) = next;
  }
  return sum;
}

static int measure(mb_ctx_t *c, char *b, uint64_t n, uint32_t stride, int link,
                   wrow_t *r) {
  int64_t expect = link_list(b, n, stride, link);
  int64_t (*fn)(uintptr_t) = link == LINK_PTR64       ? walk_ptr64
                             : link == LINK_PTR64_ALU ? walk_ptr64_alu
                                                      : walk_u32;
  double *t = calloc(c->reps, sizeof *t);
  if (!t) return -1;
  sink = fn((uintptr_t)b); /* warm: page tables, caches as they will be */
  for (unsigned k = 0; k < c->reps; k++) {
    uint64_t t0 = mb_tsc_begin();
    int64_t got = fn((uintptr_t)b);
    uint64_t t1 = mb_tsc_end();
    if (got != expect) {
      fprintf(stderr, "compactptr-membench walk: %s walk at stride %u summed %lld, "
                      "expected %lld\n",
              link_name[link], stride, (long long)got, (long long)expect);
      free(t);
      return -1;
    }
    t[k] = (double)(t1 - t0) / (double)n;
  }
  mb_stats_t s = mb_stats(t, c->reps);
  free(t);
  r->stride = stride;
  r->link = link;
  r->cyc = s.median;
  r->ns = mb_ticks_to_ns(&c->clock, s.median);
  r->ns_min = mb_ticks_to_ns(&c->clock, s.min);
  r->ratio = NAN;
  return 0;
}

static size_t parse_strides(const mb_ctx_t *c, const char *arg, uint32_t *out,
                            size_t cap, int *bad) {
  char buf[256], *save = NULL;
  size_t n = 0;
  *bad = 1;
  if (mb_list_opt(c, "--strides", arg)) return 0;
  if (strlen(arg) >= sizeof buf) {
    mb_usage_error(c, "--strides: list too long");
    return 0;
  }
  strcpy(buf, arg);
  for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    uint64_t v;
    if (n == cap) {
      mb_usage_error(c, "--strides: at most %zu strides", cap);
      return 0;
    }
    if (mb_uint_opt(c, "--strides", tok, 8, 4096, &v)) return 0;
    if (v % 8) {
      mb_usage_error(c, "--strides: %llu is not a multiple of 8", (unsigned long long)v);
      return 0;
    }
    out[n++] = (uint32_t)v;
  }
  *bad = 0;
  return n;
}

int mb_cmd_walk(int argc, char **argv, mb_ctx_t *c) {
  enum { O_NODES = MB_OPT_FIRST_LOCAL, O_STRIDES };
  static const struct option opts[] = {MB_COMMON_LONGOPTS,
                                       {"nodes", required_argument, 0, O_NODES},
                                       {"strides", required_argument, 0, O_STRIDES},
                                       {0, 0, 0, 0}};
  uint64_t nodes = 4u << 20;
  uint32_t strides[16] = {8, 16, 32};
  size_t nstrides = 3;
  int o, bad;
  optind = 1;
  opterr = 0;
  while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
    switch (o) {
    case 'h':
      fputs(walk_help, stdout);
      fputs(mb_common_help, stdout);
      return MB_EXIT_OK;
    case O_NODES:
      if (mb_uint_opt(c, "--nodes", optarg, 1024, 1u << 28, &nodes)) return MB_EXIT_USAGE;
      break;
    case O_STRIDES:
      nstrides = parse_strides(c, optarg, strides, 16, &bad);
      if (bad) return MB_EXIT_USAGE;
      break;
    case ':': return mb_usage_error(c, "option '%s' needs a value", argv[optind - 1]);
    case '?': return mb_usage_error(c, "unknown option '%s'", argv[optind - 1]);
    default:
      if (mb_common_opt(c, o, optarg)) return MB_EXIT_USAGE;
    }
  }
  if (optind < argc) return mb_usage_error(c, "unexpected argument '%s'", argv[optind]);
  if (c->plot) return mb_usage_error(c, "--plot is supported by chase and tlb only");
  uint32_t widest = 0;
  for (size_t i = 0; i < nstrides; i++)
    if (strides[i] > widest) widest = strides[i];
  if (nodes * widest > (1ull << 30))
    return mb_usage_error(c, "--nodes %llu at stride %u is %llu bytes: at most 1 GiB",
                          (unsigned long long)nodes, widest,
                          (unsigned long long)(nodes * widest));
  if (!c->reps) c->reps = 5;
  int rc = mb_start(c);
  if (rc) return rc;

  /* One buffer for every walk, from the compact arena: where a
   * compact-only program's nodes are, below 4 GiB when the runtime chose
   * unscaled handles, so the u32 links are the nodes' addresses. */
  size_t len = (size_t)(nodes * widest);
  char *b = cp_try_alloc_array(&walk_bytes, len);
  if (!b) {
    fprintf(stderr, "compactptr-membench walk: the compact arena has no %zu "
                    "bytes for the list\n", len);
    return MB_EXIT_FAIL;
  }
  bool low = (uintptr_t)b + len <= UINT32_MAX;
  wrow_t *rows = calloc(nstrides * NLINK, sizeof *rows);
  size_t n = 0;
  for (size_t i = 0; i < nstrides && rows; i++) {
    wrow_t *base = NULL;
    for (int l = 0; l < NLINK; l++) {
      if (l != LINK_U32 && strides[i] < 16) continue;
      if (l == LINK_U32 && !low) continue;
      mb_progress(c, "walk stride %u %s", strides[i], link_name[l]);
      if (measure(c, b, nodes, strides[i], l, &rows[n]) != 0) {
        cp_free(b);
        free(rows);
        return MB_EXIT_FAIL;
      }
      if (l == LINK_PTR64) base = &rows[n];
      if (base) rows[n].ratio = rows[n].ns / base->ns;
      n++;
    }
  }
  cp_free(b);
  mb_progress(c, "%s", "");
  if (!low)
    fprintf(stderr, "compactptr-membench walk: no u32 rows: the compact arena "
                    "lies above 4 GiB (handles are not addresses here)\n");
  if (!rows) return MB_EXIT_FAIL;

  if (c->out == MB_OUT_JSON) {
    mb_json_t j;
    mb_json_init(&j, stdout, 1);
    mb_json_begin_object(&j, NULL);
    mb_json_common(&j, c);
    mb_json_begin_object(&j, "config");
    mb_json_int(&j, "nodes", (long long)nodes);
    mb_json_end_object(&j);
    mb_json_begin_array(&j, "results");
    for (size_t i = 0; i < n; i++) {
      mb_json_begin_object(&j, NULL);
      mb_json_int(&j, "stride", rows[i].stride);
      mb_json_string(&j, "link", link_name[rows[i].link]);
      mb_json_number(&j, "ns_per_node", rows[i].ns);
      mb_json_number(&j, "ns_min", rows[i].ns_min);
      mb_json_number(&j, "cycles_per_node", rows[i].cyc);
      mb_json_number(&j, "ratio_to_ptr64", rows[i].ratio);
      mb_json_end_object(&j);
    }
    mb_json_end_array(&j);
    mb_json_end_object(&j);
    mb_json_finish(&j);
  } else if (c->out == MB_OUT_CSV) {
    fputs("stride,link,ns_per_node,ns_min,cycles_per_node,ratio_to_ptr64\n", stdout);
    for (size_t i = 0; i < n; i++) {
      mb_csv_int(stdout, 1, rows[i].stride);
      mb_csv_string(stdout, 0, link_name[rows[i].link]);
      mb_csv_number(stdout, 0, rows[i].ns);
      mb_csv_number(stdout, 0, rows[i].ns_min);
      mb_csv_number(stdout, 0, rows[i].cyc);
      mb_csv_number(stdout, 0, rows[i].ratio);
      mb_csv_end_row(stdout);
    }
  } else {
    char sz[32];
    mb_table_header(stdout, c);
    printf("A list of %llu nodes (%s at the widest stride) in address order, walked\n"
           "head to NULL; ns per node, median of %u; x ptr64 = relative to ptr64 at\n"
           "the same stride.\n",
           (unsigned long long)nodes, mb_fmt_size(nodes * widest, sz, sizeof sz), c->reps);
    printf("%6s | %-9s %8s %8s %8s\n", "stride", "link", "ns", "cycles", "x ptr64");
    for (size_t i = 0; i < n; i++) {
      char ratio[16] = "-";
      if (!isnan(rows[i].ratio)) snprintf(ratio, sizeof ratio, "%.2f", rows[i].ratio);
      printf("%6u | %-9s %8.3f %8.2f %8s\n", rows[i].stride, link_name[rows[i].link],
             rows[i].ns, rows[i].cyc, ratio);
    }
  }
  free(rows);
  return MB_EXIT_OK;
}
