/*
 * stats.c - statistics: per-type object and byte counts (each heap counts
 * its own thread's allocations, the live count comes from the slabs:
 * heap.c), arena use, and the switch.  COMPACTPTR_STATS=1 prints the
 * report at exit.
 */
#include "internal.h"

#include <string.h>

uint32_t cp_get_stats(cp_stats_t *out, cp_type_stats_t *types, uint32_t max) {
  if (!out)
    cp__fatal("cp_get_stats: the first argument must point to a cp_stats_t "
              "(it is NULL)");
  cp__init();
  cp__lock();
  cp_arena_t *a = cp__current_arena();
  memset(out, 0, sizeof *out);
  out->wide = cp__wide;
  out->arena_reach = cp__wide ? cp__arena_limit_seen : cp__compact_arena.span;
  out->arena_used = a->used_pages << CP_PAGE_SHIFT;
  out->arena_peak = cp__wide ? cp__arena_peak_seen
                             : cp__compact_arena.peak_pages << CP_PAGE_SHIFT;
  out->arena_committed = a->committed_bytes;
  out->root_arrays = cp__root_arrays;
  out->root_array_bytes = cp__root_array_bytes;
  out->pinned_blocks = cp__pinned_blocks;
  out->pinned_bytes = cp__pinned_bytes;
  out->ntypes = cp__ntypes;
  out->switch_objects = cp__switch_count_objects;
  out->switch_bytes_compact = cp__switch_bytes_compact;
  out->switch_bytes_wide = cp__switch_bytes_wide;
  out->switch_roots = cp__switch_roots;
  out->switch_seconds = cp__switch_seconds;
  for (uint32_t k = 0; types && k < cp__ntypes && k < max; k++) {
    cp_type_t *t = cp__types[k];
    uint64_t allocs;
    int64_t live, peak;
    cp__type_counts(t, &allocs, &live, &peak);
    types[k] = (cp_type_stats_t){
        .name = t->desc->name,
        .compact_size = t->compact_slot,
        .wide_size = t->wide_slot,
        .live_objects = (uint64_t)live,
        .peak_objects = (uint64_t)peak,
        .total_allocs = allocs,
        .total_frees = allocs - (uint64_t)live,
        .live_bytes = (uint64_t)live * t->slot,
        .peak_bytes = (uint64_t)peak * t->slot,
    };
  }
  cp__unlock();
  return cp__ntypes;
}

void cp_print_stats(void *fp) {
  FILE *f = fp ? fp : stderr;
  cp_stats_t s;
  cp_get_stats(&s, NULL, 0);
  cp__lock();
  fprintf(f, "compactptr: mode %s; arena %llu KiB reach, %llu KiB peak use",
          s.wide ? "wide" : "compact", (unsigned long long)(s.arena_reach >> 10),
          (unsigned long long)(s.arena_peak >> 10));
  if (s.wide)
    fprintf(f, ", wide heap %llu KiB in use", (unsigned long long)(s.arena_used >> 10));
  fprintf(f, "; %llu root arrays (%llu bytes)",
          (unsigned long long)s.root_arrays,
          (unsigned long long)s.root_array_bytes);
  if (s.pinned_blocks)
    fprintf(f, "; %llu pinned blocks (%llu bytes)",
            (unsigned long long)s.pinned_blocks,
            (unsigned long long)s.pinned_bytes);
  fputc('\n', f);
  cp__arena_describe(f);
  fprintf(f, "compactptr: %-20s %8s %8s %12s %12s %12s %14s\n", "type",
          "compact", "wide", "live", "peak", "allocs", "live bytes");
  for (uint32_t k = 0; k < cp__ntypes; k++) {
    cp_type_t *t = cp__types[k];
    uint64_t allocs;
    int64_t live, peak;
    cp__type_counts(t, &allocs, &live, &peak);
    fprintf(f, "compactptr: %-20s %8u %8u %12llu %12llu %12llu %14llu\n",
            t->desc->name, t->compact_slot, t->wide_slot,
            (unsigned long long)live,
            (unsigned long long)peak, (unsigned long long)allocs,
            (unsigned long long)((uint64_t)live * t->slot));
  }
  if (s.switch_seconds > 0 || s.switch_objects) {
    fprintf(f, "compactptr: switch: %llu objects moved (%llu -> %llu bytes), "
            "%llu roots, %.3f ms; safepoints deferred under compact bodies: "
            "%llu\n",
            (unsigned long long)s.switch_objects,
            (unsigned long long)s.switch_bytes_compact,
            (unsigned long long)s.switch_bytes_wide,
            (unsigned long long)s.switch_roots, s.switch_seconds * 1e3,
            (unsigned long long)__atomic_load_n(&cp__safepoints_deferred,
                                                __ATOMIC_RELAXED));
    for (uint32_t k = 0; k < cp__ntypes; k++)
      if (cp__types[k]->switch_objects)
        fprintf(f, "compactptr: switch: %-20s %llu objects\n",
                cp__types[k]->desc->name,
                (unsigned long long)cp__types[k]->switch_objects);
  } else if (cp__switch_pending) {
    /* Say why a pending switch never ran: a user reading "no switch"
     * must not think the arena stayed below its mark. */
    uint64_t since = cp__allocs_so_far() - cp__pending_since;
    if (cp__safepoints_deferred)
      fprintf(f, "compactptr: no switch happened, though one was pending for the last "
              "%llu allocations: %llu safepoints were deferred because a compact "
              "body was active on the stack, and no safepoint was reached outside one\n",
              (unsigned long long)since, (unsigned long long)cp__safepoints_deferred);
    else
      fprintf(f, "compactptr: no switch happened, though one was pending for the last "
              "%llu allocations: no safepoint was reached since it became pending\n",
              (unsigned long long)since);
  } else {
    fprintf(f, "compactptr: no switch happened\n");
  }
  cp__unlock();
}

void cp__stats_at_exit(void) { cp_print_stats(stderr); }
