/*
 * arena.c - reserved ranges of address space and their metadata.
 *
 * Handles are zero-based, as in HotSpot's compressed oops: a handle is an
 * address divided by the granule, so compiled code decodes it with at most
 * one shift that folds into the load's addressing mode, with no base
 * register and no NULL select (handle 0 is address 0; compactptr.h).  That
 * needs the compact arena below the reach (2^32 granules: 4 GiB with the
 * default 1-byte granule, 16 GiB with 4-byte granules).
 * cp__compact_reserve places it once, at load time (the runtime's
 * constructor), and it never moves:
 *
 *   low     [2 MiB, 2 MiB + limit), with [64 KiB, 2 MiB) reserved
 *           inaccessible below it (a field access through a NULL handle
 *           faults up to offset 2 MiB).  Free in position-independent
 *           executables (the default), where everything else the program
 *           can point to (its image, libraries, malloc's memory, stacks)
 *           lies far above the reach, so cp_encode's one test catches a
 *           foreign pointer.
 *   gap     else the largest free gap below the reach (2 MiB aligned,
 *           leaving a GiB above the program break to the brk heap): an executable
 *           linked at a fixed low address (-no-pie), AddressSanitizer (its
 *           shadow begins at 2 GiB), valgrind.  The arena may be smaller
 *           than asked: the switch comes earlier.
 *   none    no gap at all: a switchable program runs in wide mode from the
 *           start, a compact-only one stops with one line.
 *
 * (A based placement anywhere in the address space, with the base in a
 * register and a select for NULL where a decoded pointer is kept, executed
 * 14% more instructions on the workloads; docs/results.md.)
 *
 * Only the first `limit` bytes are managed (COMPACTPTR_ARENA_LIMIT) and
 * only they are reserved.  Under an address-space limit (RLIMIT_AS,
 * `ulimit -v`) the arena takes at most a fifth of the address space left
 * at load time, so the program and, after the switch, the wide heap fit
 * beside it.  Pages become accessible in 2 MiB chunks as the buddy
 * allocator first hands them out.
 *
 * The wide arena (after the switch, or from the start in a `wide` build)
 * is reserved when needed: COMPACTPTR_WIDE_RESERVE, halved until the kernel
 * (or valgrind, or RLIMIT_AS) accepts it, never below what the compact
 * heap will need in wide layout.
 *
 * Metadata lives out of line in one zero-filled mapping, so untouched parts
 * of a large arena cost address space only: per page a slab pointer (the
 * page map) and the buddy's record of a run it heads (cp_buddy_page_t).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dl_iterate_phdr, REG_RIP */
#endif
#include "internal.h"

#include <link.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <string.h>

/* The low placement: the arena starts at CP_LOW_START (internal.h), and
 * the pages from CP_LOW_GUARD up to it are reserved inaccessible. */
#define CP_LOW_GUARD ((uintptr_t)64 << 10)
/* Under RLIMIT_AS the compact arena takes at most 1/CP_AS_SHARE of the
 * address space left at load time. */
#define CP_AS_SHARE 5

/* RLIMIT_AS when it made the wide arena smaller than the knob asked. */
static uint64_t wide_as_limit;

cp_reservation_t cp__reservation;

static size_t align_up(size_t v, size_t a) { return (v + a - 1) & ~(a - 1); }

/* Metadata for pages [0, npages) of an arena whose page 0 is at base;
 * the buddy gets [first_page, npages). */
static bool manage(cp_arena_t *a, char *base, size_t reserved,
                   uint32_t npages, uint32_t first_page, bool wide) {
  memset(a, 0, sizeof *a);
  if (npages <= first_page)
    return false;
  size_t limit = (size_t)npages << CP_PAGE_SHIFT;
  size_t nchunks = (limit + ((size_t)1 << CP_COMMIT_SHIFT) - 1) >> CP_COMMIT_SHIFT;

  size_t off_pagemap = 0;
  size_t off_runs = align_up(off_pagemap + npages * sizeof(cp_slab_t *), 64);
  size_t off_commit =
      align_up(off_runs + npages * sizeof(cp_buddy_page_t), 64);
  size_t meta = align_up(off_commit + nchunks, CP_PAGE_SIZE);

  char *m = cp__os_alloc_zeroed(meta);
  if (!m)
    return false;
  a->base = base;
  a->reserved = reserved;
  a->start = (uintptr_t)base + ((uintptr_t)first_page << CP_PAGE_SHIFT);
  a->span = (size_t)(npages - first_page) << CP_PAGE_SHIFT;
  a->meta = m;
  a->meta_bytes = meta;
  a->pagemap = (cp_slab_t **)(m + off_pagemap);
  a->runs = (cp_buddy_page_t *)(m + off_runs);
  a->committed = (uint8_t *)(m + off_commit);
  a->npages = npages;
  a->first_page = first_page;
  a->wide = wide;
  a->max_order = 0;
  while (((size_t)2 << a->max_order) <= npages)
    a->max_order++;
  for (uint32_t k = 0; k < 33; k++)
    a->free_head[k] = CP_NONE;

  /* The buddy carves runs from [first_page, npages) as it needs them. */
  a->frontier = first_page;
  a->used_pages = 0;
  a->peak_pages = 0;
  return true;
}

bool cp__arena_init(cp_arena_t *a, size_t reserve, size_t limit,
                    uint32_t first_page, bool wide) {
  memset(a, 0, sizeof *a);
  if (limit > reserve)
    limit = reserve;
  size_t npages = limit >> CP_PAGE_SHIFT;
  if (npages > UINT32_MAX - 1 || npages <= first_page)
    return false;
  char *base = cp__os_reserve(reserve);
  if (!base)
    return false;
  if (!manage(a, base, reserve, (uint32_t)npages, first_page, wide)) {
    cp__os_release(base, reserve);
    return false;
  }
  return true;
}

void cp__arena_destroy(cp_arena_t *a) {
  cp__os_release(a->base, a->reserved);
  cp__os_free(a->meta, a->meta_bytes);
  memset(a, 0, sizeof *a);
}

/* ---- the compact arena -------------------------------------------------- */

static void place(cp_reservation_t *r) {
  /* Whole slab runs: commit chunks are 2 MiB aligned by the placement, and
   * the last one is clipped to the managed pages. */
  const size_t unit = (size_t)1 << CP_SLAB_MIN_SHIFT;
  uint64_t limit = cp__option(CP_OPT_ARENA_LIMIT) & ~(uint64_t)(unit - 1);
  r->limit = limit;
  if (limit > CP_ARENA_REACH - CP_LOW_START)
    limit = CP_ARENA_REACH - CP_LOW_START;
  r->as_free = cp__os_address_space_free(&r->as_limit);
  if (r->as_limit) {
    uint64_t share = r->as_free / CP_AS_SHARE & ~(uint64_t)(unit - 1);
    if (share < limit) {
      r->shrunk_as = true;
      limit = share;
    }
    if (limit < ((uint64_t)2 << CP_SLAB_MIN_SHIFT))
      return; /* cp__compact_arena_missing says why */
  }

  char *p = cp__os_reserve_at(CP_LOW_START, limit);
  if (p) {
    r->low = true;
    /* The guard costs address space only: not under RLIMIT_AS. */
    if (!r->as_limit)
      (void)cp__os_reserve_at(CP_LOW_GUARD, CP_LOW_START - CP_LOW_GUARD);
  } else {
    /* Another mapping is in the way: the largest gap below the reach.
     * Tried twice, in case something is mapped between the scan and the
     * reservation. */
    for (int tries = 0; !p && tries < 2; tries++) {
      uintptr_t gap;
      size_t bytes;
      if (!cp__os_largest_gap(CP_LOW_START, CP_ARENA_REACH, &gap, &bytes) ||
          bytes < ((size_t)2 << CP_SLAB_MIN_SHIFT))
        return;
      if (bytes < limit) {
        /* Whole commit chunks: the buddy then carves no small runs at the
         * top of the arena, which it would hand out first. */
        r->shrunk_gap = true;
        limit = bytes >= ((size_t)1 << CP_COMMIT_SHIFT)
                    ? bytes & ~(uint64_t)(((size_t)1 << CP_COMMIT_SHIFT) - 1)
                    : bytes & ~(uint64_t)(unit - 1);
      }
      p = cp__os_reserve_at(gap, limit);
    }
    if (!p)
      return;
  }
  r->ok = true;
  r->lo = p;
  r->bytes = limit;
}

void cp__compact_reserve(void) {
  cp_reservation_t *r = &cp__reservation;
  if (r->done)
    return;
  r->done = true;
  place(r);
  /* No room: the process is in wide mode before any code asks which mode
   * it is in (a switchable program's loops choose their version once); a
   * compact-only program stops at its first allocation. */
  if (!r->ok)
    cp__wide = 1;
}

bool cp__compact_arena_adopt(cp_arena_t *a) {
  const cp_reservation_t *r = &cp__reservation;
  if (!r->ok)
    return false;
  if (!manage(a, r->lo, r->bytes, (uint32_t)(r->bytes >> CP_PAGE_SHIFT), 0,
              false))
    cp__fatal_no_memory("cannot map the metadata of the %zu-byte compact "
                        "arena (20 bytes per 4 KiB page); set "
                        "COMPACTPTR_ARENA_LIMIT lower",
                        r->bytes);
  return true;
}

_Noreturn void cp__compact_arena_missing(void) {
  const cp_reservation_t *r = &cp__reservation;
  if (r->as_limit && r->as_free / CP_AS_SHARE < ((uint64_t)2 << CP_SLAB_MIN_SHIFT))
    cp__fatal("cannot reserve the compact arena under the address-space "
              "limit (RLIMIT_AS, ulimit -v) of %llu bytes: %llu bytes were "
              "free at start-up and the arena takes at most a fifth of them "
              "(it needs 128 KiB or more); raise the limit",
              (unsigned long long)r->as_limit, (unsigned long long)r->as_free);
  cp__fatal("cannot place the compact arena below %llu bytes, where handles "
            "reach: the address range is in use; this program was built "
            "compact-only (a switchable build runs in wide mode instead)",
            (unsigned long long)CP_ARENA_REACH);
}

void cp__compact_reserve_release(void) {
  cp_reservation_t *r = &cp__reservation;
  if (r->ok)
    cp__os_release(r->lo, r->bytes);
  r->ok = false;
}

/* ---- the retired compact arena ------------------------------------------ */

static uintptr_t retired_lo, retired_hi;
static struct sigaction fault_prev;
/* Where a poisoned link leads: its address plus a field's offset (a
 * page: a program's own probe of low memory elsewhere stays its own). */
#define POISON_SPAN ((uintptr_t)0x1000)

/* The modules loaded when the arena retired (the program, its shared
 * libraries): where each is mapped and its file, taken outside the signal
 * handler, so the handler can name the faulting instruction as FILE+OFFSET
 * for addr2line without calling into the dynamic loader. */
enum { MODULES = 32, MODULE_NAMES = 4096 };
static struct {
  uintptr_t bias, lo, hi;
  const char *name;
} modules[MODULES];
static int nmodules;
static char module_names[MODULE_NAMES];

static int note_module(struct dl_phdr_info *info, size_t size, void *used) {
  (void)size;
  size_t *at = used;
  if (nmodules == MODULES)
    return 1;
  uintptr_t lo, hi;
  cp__image_range(info, &lo, &hi);
  if (lo >= hi)
    return 0;
  char *out = module_names + *at;
  size_t room = sizeof module_names - *at, len;
  if (info->dlpi_name && *info->dlpi_name) {
    len = strlen(info->dlpi_name) + 1;
    if (len > room)
      return 0;
    memcpy(out, info->dlpi_name, len);
  } else { /* the program itself; a path cut short would name nothing */
    ssize_t n = room ? readlink("/proc/self/exe", out, room) : -1;
    if (n <= 0 || (size_t)n >= room)
      return 0;
    out[n] = 0;
    len = (size_t)n + 1;
  }
  modules[nmodules].bias = info->dlpi_addr;
  modules[nmodules].lo = lo;
  modules[nmodules].hi = hi;
  modules[nmodules].name = module_names + *at;
  nmodules++;
  *at += len;
  return 0;
}

static size_t put_hex(char *out, uintptr_t a) {
  size_t n = 0;
  out[n++] = '0';
  out[n++] = 'x';
  for (int sh = 60; sh >= 0; sh -= 4)
    if (a >> sh || sh == 0)
      out[n++] = "0123456789abcdef"[(a >> sh) & 15];
  return n;
}

static size_t put_str(char *out, size_t room, const char *s) {
  size_t n = strlen(s);
  if (n > room)
    n = room;
  memcpy(out, s, n);
  return n;
}

/* The instruction that faulted, from the signal's context. */
static uintptr_t fault_pc(const void *uc) {
#if defined(__x86_64__)
  return (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
  return (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.pc;
#else
  (void)uc;
  return 0;
#endif
}

/* SIGSEGV: a fault in the retired arena is a compact pointer the switch
 * did not translate; one just above CP__POISON_ADDRESS is a poisoned link
 * (cp__poison_link) followed; any other fault goes where it went before. */
static void arena_fault(int sig, siginfo_t *si, void *uc) {
  uintptr_t a = (uintptr_t)si->si_addr;
  bool retired = a >= retired_lo && a < retired_hi;
  bool poisoned =
      a >= CP__POISON_ADDRESS && a < CP__POISON_ADDRESS + POISON_SPAN;
  if (retired || poisoned) {
    /* Async-signal-safe: no stdio, the address formatted by hand. */
    char msg[1024];
    size_t n = 0;
    if (retired) {
      n = put_str(msg, sizeof msg,
                  "compactptr: a compact pointer was used after the switch "
                  "to wide mode (an access at ");
      n += put_hex(msg + n, a);
      n += put_str(msg + n, sizeof msg - n, ", in the released compact arena");
    } else {
      n = put_str(msg, sizeof msg,
                  "compactptr: a link that names no object was followed (an "
                  "access at ");
      n += put_hex(msg + n, a);
    }
    static const char rest_retired[] =
        "): it was kept where the switch could "
        "not translate it ('void *' in memory the runtime does not know, an "
        "integer, a union, a thread's return value, a pointer into an "
        "object returned by a function or passed to one; the plugin's "
        "-Wcompactptr-void-escape, "
        "-interior-escape, -foreign-object and -integer-cast warnings say "
        "where they can see it)\n";
    static const char rest_poisoned[] =
        "): a struct value stored whole into the heap had a pointer there "
        "that no handle can represent, a member never set or memory "
        "compactptr did not allocate (the "
        "plugin's -Wcompactptr-foreign-object and -integer-cast warnings say "
        "where they can see it; COMPACTPTR_DEBUG=1 names the first such "
        "store)\n";
    const char *rest = retired ? rest_retired : rest_poisoned;
    size_t rest_len = retired ? sizeof rest_retired : sizeof rest_poisoned;
    /* The instruction, when its module is known and the part fits whole
     * beside the rest of the line (a path is not worth half a message). */
    uintptr_t pc = fault_pc(uc);
    for (int i = 0; pc && i < nmodules; i++) {
      if (pc < modules[i].lo || pc >= modules[i].hi)
        continue;
      static const char at[] = ", by the instruction at ", in[] = " in ",
                        cmd[] = ": addr2line -fie ";
      size_t name = strlen(modules[i].name);
      if (n + sizeof at + sizeof in + sizeof cmd + 2 * (name + 18) + rest_len >
          sizeof msg)
        break;
      uintptr_t off = pc - modules[i].bias;
      n += put_str(msg + n, sizeof at - 1, at);
      n += put_hex(msg + n, off);
      n += put_str(msg + n, sizeof in - 1, in);
      n += put_str(msg + n, name, modules[i].name);
      n += put_str(msg + n, sizeof cmd - 1, cmd);
      n += put_str(msg + n, name, modules[i].name);
      msg[n++] = ' ';
      n += put_hex(msg + n, off);
      break;
    }
    n += put_str(msg + n, sizeof msg - n, rest);
    /* The fault is the program's own access, not an interrupt: the
     * streams are its thread's to flush (their locks are recursive), and
     * a report printed before the fault is not lost to _exit. */
    cp__flush_streams();
    (void)!write(2, msg, n);
    _exit(70);
  }
  if (fault_prev.sa_flags & SA_SIGINFO) {
    fault_prev.sa_sigaction(sig, si, uc);
  } else if (fault_prev.sa_handler == SIG_DFL ||
             fault_prev.sa_handler == SIG_IGN) {
    /* The faulting access runs again under the action that was there. */
    sigaction(SIGSEGV, &fault_prev, NULL);
  } else {
    fault_prev.sa_handler(sig);
  }
}

/* Once: the modules loaded now, and the handler (the previous action kept
 * for the faults that are not ours). */
static void install_fault_handler_once(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  size_t used = 0;
  nmodules = 0;
  dl_iterate_phdr(note_module, &used);
  sa.sa_sigaction = arena_fault;
  /* SA_NODEFER: the program's handler that this one hands a fault on to
   * may fault again inside itself (a probe that recovers by siglongjmp),
   * which must reach it, not kill the process. */
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &fault_prev);
}

/* pthread_once: a program that stores poisoned links in a loop pays one
 * load after the first. */
static void install_fault_handler(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, install_fault_handler_once);
}

void cp__compact_arena_retire(cp_arena_t *a) {
  if (!cp__reservation.as_limit) {
    retired_lo = (uintptr_t)a->base;
    retired_hi = retired_lo + a->reserved;
    cp__os_guard(a->base, a->reserved);
    a->base = NULL; /* still reserved: nothing for cp__arena_destroy to unmap */
    install_fault_handler();
  }
  cp__arena_destroy(a);
}

cp_handle_t cp__poison_link(const void *p) {
  static bool shown;
  install_fault_handler();
  if (cp__debug && !__atomic_exchange_n(&shown, true, __ATOMIC_RELAXED))
    fprintf(stderr,
            "compactptr: debug: a struct value stored whole into the heap "
            "holds %p, which no handle can represent: stored as a link to "
            "%#lx, which faults when followed (a member never set is "
            "harmless; shown once)\n",
            p, (unsigned long)CP__POISON_ADDRESS);
  return (cp_handle_t)(CP__POISON_ADDRESS >> CP_GRANULE_SHIFT);
}

const char *cp__arena_limit_note(const cp_arena_t *a) {
  static char note[240];
  const cp_reservation_t *r = &cp__reservation;
  if (a->wide) {
    if (!wide_as_limit)
      return "";
    snprintf(note, sizeof note,
             " (the address-space limit RLIMIT_AS of %llu bytes shrank it: "
             "three quarters of the address space free at the switch)",
             (unsigned long long)wide_as_limit);
  } else if (r->shrunk_as) {
    snprintf(note, sizeof note,
             " (the address-space limit RLIMIT_AS of %llu bytes shrank the "
             "arena from %llu bytes: a fifth of the %llu bytes free at start-up)",
             (unsigned long long)r->as_limit, (unsigned long long)r->limit,
             (unsigned long long)r->as_free);
  } else if (r->shrunk_gap) {
    snprintf(note, sizeof note,
             " (shrunk from %llu bytes: the largest free range below %llu "
             "bytes, where handles reach, is smaller)",
             (unsigned long long)r->limit, (unsigned long long)CP_ARENA_REACH);
  } else {
    return "";
  }
  return note;
}

const char *cp__compact_arena_advice(void) {
  const cp_reservation_t *r = &cp__reservation;
  if (r->shrunk_as)
    return "raise the address-space limit (ulimit -v, prlimit --as)";
  if (r->shrunk_gap)
    return "free the address range below the handles' reach (link the "
           "program as a position-independent executable)";
  if (r->limit < CP_ARENA_REACH - CP_LOW_START)
    return "raise COMPACTPTR_ARENA_LIMIT";
  return NULL;
}

void cp__arena_describe(FILE *f) {
  const cp_reservation_t *r = &cp__reservation;
  if (!r->done)
    return;
  if (!r->ok) {
    fprintf(f, "compactptr: handles: no compact arena%s\n",
            cp__wide ? " (wide mode from the start)" : "");
    return;
  }
  /* HotSpot's names: unscaled when a handle is the address itself. */
  char how[32] = "unscaled (h)";
  if (CP_GRANULE_SHIFT)
    snprintf(how, sizeof how, "zero-based (h << %d)", CP_GRANULE_SHIFT);
  fprintf(f, "compactptr: handles: %s; arena %p-%p%s%s%s\n", how,
          (void *)r->lo, (void *)(r->lo + r->bytes),
          r->low ? "" : ", in the largest free gap (the range from 2 MiB to the reach is not all free)",
          cp__wide ? ", released at the switch" : "",
          cp__arena_limit_note(&cp__compact_arena));
}

/* ---- the wide arena ----------------------------------------------------- */

void cp__wide_arena_reserve(cp_arena_t *a) {
  const size_t chunk = (size_t)1 << CP_COMMIT_SHIFT;
  uint64_t want = cp__option(CP_OPT_WIDE_RESERVE) & ~(uint64_t)(chunk - 1);
  /* Room for the compact heap in wide layout (each type's slots grow by
   * at most the largest wide/compact ratio), and some for growth. */
  uint64_t ratio = 2;
  for (uint32_t k = 0; k < cp__ntypes; k++) {
    const cp_type_t *t = cp__types[k];
    uint64_t q = (t->wide_slot + t->compact_slot - 1) / t->compact_slot;
    if (q > ratio)
      ratio = q;
  }
  uint64_t need = (uint64_t)cp__compact_arena.used_pages << CP_PAGE_SHIFT;
  need = align_up(need * ratio + ((uint64_t)8 << 20), chunk);
  if (need > want)
    need = want; /* the knob asked for less: it is exhausted later, or not */
  /* Under RLIMIT_AS: three quarters of what is left, so the program's own
   * memory (libc's heap, root arrays, stacks) still fits; more if the heap
   * needs it, as the compact arena goes away right after the switch. */
  uint64_t as_limit;
  uint64_t as_free = cp__os_address_space_free(&as_limit);
  if (as_limit && want > as_free / 4 * 3) {
    want = as_free / 4 * 3 & ~(uint64_t)(chunk - 1);
    if (want < need)
      want = need;
    wide_as_limit = as_limit;
  }
  /* Halve until the kernel, RLIMIT_AS or valgrind's address-space manager
   * accepts the reservation and its metadata. */
  for (uint64_t w = want; w >= need && w >= 2 * chunk;
       w = w / 2 & ~(uint64_t)(chunk - 1))
    if (cp__arena_init(a, w, w, 1, true))
      return;
  if (as_limit)
    cp__fatal("cannot reserve address space for the wide heap (at least "
              "%llu bytes) under the address-space limit (RLIMIT_AS, ulimit "
              "-v) of %llu bytes, %llu of them free; raise the limit, or set "
              "COMPACTPTR_ARENA_LIMIT lower so the switch comes earlier",
              (unsigned long long)need, (unsigned long long)as_limit,
              (unsigned long long)as_free);
  cp__fatal("cannot reserve address space for the wide heap: tried %llu "
            "bytes down to %llu (COMPACTPTR_WIDE_RESERVE=%llu); set "
            "COMPACTPTR_ARENA_LIMIT lower so the switch comes earlier",
            (unsigned long long)want, (unsigned long long)need,
            (unsigned long long)cp__option(CP_OPT_WIDE_RESERVE));
}
