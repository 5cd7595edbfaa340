/*
 * heap.c - process state and the public allocation entry points.
 *
 * The heap is the set of runtime types (descriptor.c), each owning slabs and
 * blocks (slab.c) in the arena of the current mode: the compact arena until
 * the switch, the wide arena after it (or from the start in a `wide` build).
 * This file decides which arena serves a call, takes the lock, watches the
 * high-water mark that makes the switch pending, and reports exhaustion.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/single_threaded.h>

int cp__wide;
int cp__debug;
int cp__switch_pending;
_Thread_local cp_frame_t *cp__frame_top CP__TLS;
_Thread_local unsigned cp__compact_depth CP__TLS;

cp_arena_t cp__compact_arena;
cp_arena_t cp__wide_arena;
uint32_t cp__build;
bool cp__build_known;
uint64_t cp__pending_since;
int cp__threads = 1;

static pthread_mutex_t heap_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static bool heap_ready;

void cp__lock_slow(void) { pthread_mutex_lock(&heap_lock); }
void cp__unlock_slow(void) { pthread_mutex_unlock(&heap_lock); }

static void init_once_fn(void) {
  cp__options_init();
  cp__compact_reserve(); /* at load time, before any code asks the mode */
  cp__debug = cp__option(CP_OPT_DEBUG) != 0;
  if (cp__option(CP_OPT_STATS))
    atexit(cp__stats_at_exit);
}

void cp__init(void) { pthread_once(&init_once, init_once_fn); }

/* Malformed options stop the program at start-up, not at first use; the
 * compact arena is placed before any constructor of the program runs. */
__attribute__((constructor(101))) static void cp__init_at_load(void) {
  cp__init();
}

void cp__wide_arena_setup(void) {
  if (!cp__arena_is_reserved(&cp__wide_arena))
    cp__wide_arena_reserve(&cp__wide_arena);
}

void cp__heap_setup(void) {
  if (heap_ready)
    return;
  if (cp__build_known && cp__build == CP_BUILD_WIDE) {
    cp__compact_reserve_release();
    cp__wide_arena_setup();
    cp__wide = 1;
  } else if (!cp__reservation.ok && !cp__compact_arena.npages) {
    /* No room below the reach of handles (the process is in wide mode
     * since load time): compression is off, the program is not. */
    if (cp__build != CP_BUILD_SWITCHABLE)
      cp__compact_arena_missing();
    cp__wide_arena_setup();
    cp__wide = 1;
  } else if (!cp__wide && cp__compact_arena_adopt(&cp__compact_arena)) {
    /* The mark counts the pages the buddy can hand out, and
     * stays a slab run below their total: the arena is carved into aligned
     * runs, so with 64 KiB slabs the last pages below a higher mark are
     * never used, the mark is never crossed, and the program would exhaust
     * the arena without the switch ever becoming pending. */
    cp_arena_t *a = &cp__compact_arena;
    uint64_t usable = a->npages - a->first_page;
    uint64_t slab = ((uint64_t)1 << CP_SLAB_MIN_SHIFT) >> CP_PAGE_SHIFT;
    uint64_t mark = (usable * cp__option(CP_OPT_HIGH_WATER) + 99) / 100;
    if (mark + slab > usable)
      mark = usable > slab ? usable - slab : 1;
    a->high_water_pages = mark;
    cp__debug_arena_start = a->start;
    cp__debug_arena_end = a->start + a->span;
  }
  heap_ready = true;
}

static inline cp_type_t *type_of(cp_type_desc_t *d) {
  cp_type_t *t = d->rt;
  return CP_LIKELY(t != NULL) ? t : cp__type_resolve(d);
}

uint64_t cp__allocs_so_far(void) {
  uint64_t n = 0;
  for (uint32_t k = 0; k < cp__ntypes; k++)
    n += cp__types[k]->allocs;
  return n;
}

/* The compact arena grew: did it reach the high-water mark?  The switch
 * itself waits for a safepoint. */
void cp__watch_high_water(void) {
  cp_arena_t *a = &cp__compact_arena;
  if (a->used_pages >= a->high_water_pages && !cp__wide &&
      !cp__switch_pending && cp__build == CP_BUILD_SWITCHABLE) {
    cp__switch_pending = 1;
    cp__pending_since = cp__allocs_so_far();
  }
}

/* A try allocation found the compact arena exhausted (it returns NULL):
 * the switch becomes pending whatever the mark says, so the caller's next
 * safepoint makes room; nothing is forced here. */
void cp__note_exhausted(void) {
  if (!cp__wide && !cp__switch_pending && cp__build == CP_BUILD_SWITCHABLE) {
    cp__switch_pending = 1;
    cp__pending_since = cp__allocs_so_far();
  }
}

static inline __attribute__((always_inline)) void *
alloc_one(cp_type_desc_t *d, bool try_only) {
  cp_type_t *t = type_of(d);
  cp__lock();
  void *p = cp__slab_take(t, 0);
  if (CP_UNLIKELY(!p))
    p = cp__alloc_in(cp__current_arena(), t, 0, try_only);
  if (CP_UNLIKELY(!p))
    cp__note_exhausted();
  cp__unlock();
  return p;
}

void *cp_alloc(cp_type_desc_t *d) { return alloc_one(d, false); }
void *cp_try_alloc(cp_type_desc_t *d) { return alloc_one(d, true); }

static void *alloc_array(cp_type_desc_t *d, size_t n, bool try_only) {
  if (n == 0)
    n = 1;
  cp_type_t *t = type_of(d);
  if (n > SIZE_MAX / t->wide_slot) {
    if (try_only)
      return NULL;
    cp__fatal("array of %zu '%s' objects: size overflows", n, d->name);
  }
  if (n == 1)
    return alloc_one(d, try_only);
  uint32_t cls = 1;
  while (cls < CP_NCLASSES - 1 && ((size_t)1 << cls) < n)
    cls++;
  cp__lock();
  void *p;
  if (((size_t)1 << cls) >= n && ((size_t)t->slot << cls) <= CP_SMALL_ARRAY)
    p = cp__alloc_in(cp__current_arena(), t, cls, try_only);
  else
    p = cp__alloc_block_in(cp__current_arena(), t, n, try_only);
  if (CP_UNLIKELY(!p))
    cp__note_exhausted();
  cp__unlock();
  return p;
}

void *cp_alloc_array(cp_type_desc_t *d, size_t n) {
  return alloc_array(d, n, false);
}
void *cp_try_alloc_array(cp_type_desc_t *d, size_t n) {
  return alloc_array(d, n, true);
}

cp_slab_t *cp__find_slab(const void *p) {
  cp_slab_t *s = cp__slab_of(&cp__compact_arena, p);
  if (!s)
    s = cp__slab_of(&cp__wide_arena, p);
  return s;
}

static _Noreturn void foreign_free(const void *p) {
  cp__fatal("free of %p: not an object allocated by compactptr in %s mode "
            "(foreign pointer, or memory already released)",
            p, cp__wide ? "wide" : "compact");
}

void cp_free(void *p) {
  if (!p)
    return;
  cp__lock();
  cp_arena_t *a = cp__current_arena();
  cp_slab_t *s = cp__slab_of(a, p);
  if (CP_UNLIKELY(!s))
    foreign_free(p);
  if (CP_LIKELY(s->kind == CP_SLAB))
    cp__slab_put(a, s, p);
  else if ((char *)p == s->start)
    cp__block_free(a, s);
  else
    cp__bad_free(s, p);
  cp__unlock();
}

size_t cp_object_count(const void *p) {
  cp_slab_t *s = p ? cp__slab_of(cp__current_arena(), p) : NULL;
  if (!s)
    return 0;
  return s->kind == CP_BLOCK ? (size_t)s->count : s->elems;
}

void *cp_realloc_array(cp_type_desc_t *d, void *p, size_t n) {
  if (!p)
    return n ? cp_alloc_array(d, n) : NULL;
  if (n == 0) {
    cp_free(p);
    return NULL;
  }
  cp_type_t *t = type_of(d);
  cp__lock();
  cp_slab_t *s = cp__slab_of(cp__current_arena(), p);
  if (!s)
    foreign_free(p);
  /* p must be a live object or array: a freed slot, an interior or a
   * never-allocated address is as fatal as it is for cp_free. */
  if (!cp__is_object_start(s, p))
    cp__bad_pointer("realloc", s, p);
  if (s->type != t)
    cp__fatal("realloc of %p as '%s': the object is a '%s'", p, d->name,
              s->type->desc->name);
  size_t old = s->kind == CP_BLOCK ? (size_t)s->count : s->elems;
  size_t elem = s->elem;
  if (n <= old && (s->kind == CP_SLAB || n > old / 2)) {
    /* Room enough, and shrinking would save less than half.  The dropped
     * elements are cleared: growing back in place reads zeros, as a fresh
     * allocation does, and no stale handle stays behind in the capacity
     * for the switch and the verifier to follow. */
    memset((char *)p + n * elem, 0, (old - n) * elem);
    cp__unlock();
    return p;
  }
  cp__unlock();
  void *q = cp_alloc_array(d, n);
  memcpy(q, p, elem * (n < old ? n : old));
  cp_free(p);
  return q;
}

int cp_thread_register(void) {
  cp__lock();
  cp__threads++;
  cp__unlock();
  return 0;
}

int cp_thread_unregister(void) {
  cp__lock();
  int r = cp__threads > 1 ? (cp__threads--, 0) : -1;
  cp__unlock();
  return r;
}

_Noreturn void cp__exhausted(cp_arena_t *a, size_t request) {
  size_t reach = a->span;
  if (a->wide)
    cp__fatal("the wide heap is exhausted: %zu bytes reserved "
              "(COMPACTPTR_WIDE_RESERVE)%s; it needed a new run of %zu bytes",
              reach, cp__arena_limit_note(a), request);
  if (cp__build == CP_BUILD_COMPACT_ONLY)
    cp__fatal("the compact arena is exhausted: %zu bytes in use of %zu%s "
              "(it needed a new run of %zu bytes); this program was built compact-only, "
              "so it cannot switch to wide mode (rebuild with "
              "-fplugin-arg-compactptr-mode=switchable or raise "
              "COMPACTPTR_ARENA_LIMIT)",
              (size_t)a->used_pages << CP_PAGE_SHIFT, reach,
              cp__arena_limit_note(a), request);
  if (cp__switch_pending)
    cp__fatal("the compact arena is exhausted (%zu bytes%s) while a switch to "
              "wide mode is pending: the switch became pending %llu "
              "allocations ago and no safepoint was reached since; add a "
              "cp_safepoint() call in a loop that allocates (outside compact "
              "bodies), or lower COMPACTPTR_HIGH_WATER to leave more headroom",
              reach, cp__arena_limit_note(a),
              (unsigned long long)(cp__allocs_so_far() - cp__pending_since));
  cp__fatal("the compact arena is exhausted (%zu bytes%s; it needed a new run "
            "of %zu bytes, more than is left) before a switch to wide mode "
            "became pending; add a cp_safepoint() call before this "
            "allocation, lower COMPACTPTR_HIGH_WATER, or raise "
            "COMPACTPTR_ARENA_LIMIT",
            reach, cp__arena_limit_note(a), request);
}
