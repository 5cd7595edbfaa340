/*
 * switch_model_test.c - the switch on random heaps of random types, checked
 * field by field against a model.
 *
 * Each run makes up NTYPES types (1 to 6 fields each: plain bytes of
 * several sizes and alignments, and handle arrays of 1 to 3 handles to any
 * of the types, itself included), with compact and wide layouts laid out
 * as a C compiler would, and builds a heap of about --mb MiB of compact
 * objects: single objects, small arrays (slabs of a size class) and large
 * arrays (blocks), some types with a handful of objects and some with
 * hundreds of thousands.  A quarter of the objects are freed before the
 * switch, so slabs have holes and some go back whole.  Every handle names
 * an object of its field's type, an element of an array, or a field
 * inside one (an interior pointer), or is NULL; in an array whose type
 * links to itself, a third of the handles name an element of the same
 * array (a list threaded through it, which the copy translates without
 * the table: its first element, the one after, or a field inside one).  After the switch every
 * live object is checked in its wide layout: every byte of plain data,
 * every pointer (to the wide address of the object, element or field the
 * handle named), and every padding byte (zero).  Contents and links are
 * recomputed from a hash of (object, element, field), so the model costs
 * no memory per field.
 *
 * The heap spans many 2 MiB chunks, so the switch gives source chunks back
 * and moves them into the wide heap while it copies: a read of a source
 * slab after its chunk went would fault or see the wrong data, and every
 * check here would catch it.
 *
 *   usage: switch_model_test [--seed=N] [--mb=N] [--both-page-kinds]
 *   COMPACTPTR_SWITCH_THREADS=2 copies with two threads (this program lets
 *   helpers copy however small the heap).  --both-page-kinds counts every
 *   fresh huge page as slow, so the copy backs wide chunks with 4 KiB
 *   pages too (checked: it did), and they are weighed against huge pages
 *   as the copy goes.
 */
#include "internal.h"
#include "testutil.h"

#undef fail_msg
#define fail_msg(...) (fprintf(stderr, __VA_ARGS__), fputc('\n', stderr), exit(1))
#define check(c, ...) ((c) ? (void)0 : fail_msg(__VA_ARGS__))

CP_DEFINE_MODULE();

enum { NTYPES = 12, MAXF = 6 };

typedef struct gtype {
  cp_type_desc_t d;
  cp_field_desc_t f[MAXF];
  char name[16];
  uint8_t *pad;  /* wide_size bytes: 1 where no field lies */
  double weight; /* share of the allocations */
} gtype_t;

static gtype_t types[NTYPES];
static uint64_t rs;

static uint64_t rnd64(void) {
  rs ^= rs << 13, rs ^= rs >> 7, rs ^= rs << 17;
  return rs;
}
static uint32_t rnd(uint32_t n) { return (uint32_t)((rnd64() >> 11) % n); }

static uint64_t mix(uint64_t a, uint64_t b, uint64_t c) {
  uint64_t h = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull) * 0xBF58476D1CE4E5B9ull ^
               (c + 0x94D049BB133111EBull) * 0xD6E8FEB86659FD39ull;
  h ^= h >> 31;
  h *= 0x94D049BB133111EBull;
  return h ^ (h >> 29);
}

static uint32_t align_up(uint32_t v, uint32_t a) { return (v + a - 1) & ~(a - 1); }

static void make_type(int k) {
  gtype_t *g = &types[k];
  snprintf(g->name, sizeof g->name, "t%d", k);
  int nf = 1 + (int)rnd(MAXF);
  uint32_t co = 0, wo = 0, calign = 1, walign = 1;
  for (int i = 0; i < nf; i++) {
    cp_field_desc_t *f = &g->f[i];
    static const char *const names[MAXF] = {"a", "b", "c", "d", "e", "f"};
    f->name = names[i];
    uint32_t ca, wa, cs, ws;
    if (rnd(2)) {
      f->kind = CP_FIELD_HANDLE;
      f->count = 1 + rnd(3);
      f->size = 0;
      f->target = &types[rnd(NTYPES)].d;
      ca = 4, wa = 8, cs = 4 * f->count, ws = 8 * f->count;
    } else {
      /* char[n], short[n], int, long or double[n] */
      static const uint32_t al[] = {1, 2, 4, 8};
      uint32_t a = al[rnd(4)];
      uint32_t n = a == 4 ? 1 : 1 + rnd(a == 1 ? 13 : 3);
      f->kind = CP_FIELD_BYTES;
      f->count = 1;
      f->size = a * n;
      f->target = NULL;
      ca = wa = a, cs = ws = a * n;
    }
    co = align_up(co, ca);
    wo = align_up(wo, wa);
    f->compact_offset = co;
    f->wide_offset = wo;
    co += cs, wo += ws;
    calign = ca > calign ? ca : calign;
    walign = wa > walign ? wa : walign;
  }
  uint32_t cround = calign > CP_GRANULE ? calign : CP_GRANULE;
  g->d = (cp_type_desc_t){CP_ABI_VERSION, CP_GRANULE_SHIFT, CP_BUILD_SWITCHABLE,
                          g->name, align_up(co, cround), calign,
                          align_up(wo, walign), walign, (uint32_t)nf, g->f,
                          NULL, NULL};
  g->pad = malloc(g->d.wide_size);
  memset(g->pad, 1, g->d.wide_size);
  for (int i = 0; i < nf; i++) {
    const cp_field_desc_t *f = &g->f[i];
    uint32_t ws = f->kind == CP_FIELD_HANDLE ? 8 * f->count : f->size;
    memset(g->pad + f->wide_offset, 0, ws);
  }
  /* Weights spread over three orders of magnitude. */
  static const double w[] = {0.001, 0.01, 0.1, 1.0};
  g->weight = w[rnd(4)];
}

/* ---- the model ----------------------------------------------------------- */

typedef struct obj {
  uint16_t type;
  uint8_t dead;
  uint32_t n; /* elements */
} obj_t;

static obj_t *objs;
static void **roots; /* a root array: roots[i] is object i's start */
static uint32_t nobjs;
static uint32_t *live_of[NTYPES], nlive_of[NTYPES]; /* survivors per type */

static uint8_t byte_of(uint32_t o, uint32_t e, int f, uint32_t i) {
  return (uint8_t)mix(o, ((uint64_t)e << 8) | (uint64_t)f, i);
}

/* Where handle j of field f of element e of object o points: NULL, or
 * (object, element, field or -1 for the start). */
typedef struct link {
  bool null;
  uint32_t obj, elem;
  int field;
} link_t;

static link_t link_of(uint32_t o, uint32_t e, int f, uint32_t j) {
  link_t l = {true, 0, 0, -1};
  const gtype_t *g = &types[objs[o].type];
  int t = (int)(((gtype_t *)g->f[f].target) - types);
  uint64_t h = mix(o ^ 0x5bd1e995u, ((uint64_t)e << 8) | (uint64_t)f, j + 77);
  if (nlive_of[t] == 0 || h % 8 == 0)
    return l;
  l.null = false;
  l.obj = live_of[t][(h >> 3) % nlive_of[t]];
  if (t == objs[o].type && objs[o].n > 1 && (h >> 40) % 3 == 0)
    l.obj = o; /* live: only survivors are filled */
  l.elem = (uint32_t)((h >> 29) % objs[l.obj].n);
  if (l.obj == o && (h >> 44) % 2 == 0)
    l.elem = (e + 1) % objs[o].n; /* the next element; the last names the first */
  /* One in four: a field inside the element, where a handle can name it
   * (a granule boundary). */
  const gtype_t *tg = &types[t];
  if ((h >> 50) % 4 == 0) {
    int k = (int)((h >> 52) % tg->d.nfields);
    if (tg->f[k].compact_offset % CP_GRANULE == 0 && tg->f[k].compact_offset)
      l.field = k;
  }
  return l;
}

static char *addr_of(link_t l, bool wide) {
  const gtype_t *g = &types[objs[l.obj].type];
  uint32_t size = wide ? g->d.wide_size : g->d.compact_size;
  char *p = (char *)roots[l.obj] + (size_t)l.elem * size;
  if (l.field >= 0)
    p += wide ? g->f[l.field].wide_offset : g->f[l.field].compact_offset;
  return p;
}

static void fill(uint32_t o) {
  const gtype_t *g = &types[objs[o].type];
  for (uint32_t e = 0; e < objs[o].n; e++) {
    char *p = (char *)roots[o] + (size_t)e * g->d.compact_size;
    for (int f = 0; f < (int)g->d.nfields; f++) {
      const cp_field_desc_t *fd = &g->f[f];
      if (fd->kind == CP_FIELD_BYTES) {
        for (uint32_t i = 0; i < fd->size; i++)
          p[fd->compact_offset + i] = (char)byte_of(o, e, f, i);
        continue;
      }
      for (uint32_t j = 0; j < fd->count; j++) {
        link_t l = link_of(o, e, f, j);
        cp_handle_t h = l.null ? 0 : cp_encode(addr_of(l, false));
        memcpy(p + fd->compact_offset + 4 * j, &h, 4);
      }
    }
  }
}

static uint64_t check_wide(uint32_t o) {
  const gtype_t *g = &types[objs[o].type];
  uint64_t fields = 0;
  check(cp__arena_contains(&cp__wide_arena, roots[o]),
        "object %u (%s) at %p is not in the wide arena", o, g->name, roots[o]);
  for (uint32_t e = 0; e < objs[o].n; e++) {
    const unsigned char *p =
        (const unsigned char *)roots[o] + (size_t)e * g->d.wide_size;
    for (uint32_t b = 0; b < g->d.wide_size; b++)
      check(!g->pad[b] || p[b] == 0,
            "object %u (%s) element %u: padding byte %u is %#x, not 0", o,
            g->name, e, b, p[b]);
    for (int f = 0; f < (int)g->d.nfields; f++, fields++) {
      const cp_field_desc_t *fd = &g->f[f];
      if (fd->kind == CP_FIELD_BYTES) {
        for (uint32_t i = 0; i < fd->size; i++)
          check(p[fd->wide_offset + i] == byte_of(o, e, f, i),
                "object %u (%s) element %u field %s byte %u: %#x, expected %#x",
                o, g->name, e, fd->name, i, p[fd->wide_offset + i],
                byte_of(o, e, f, i));
        continue;
      }
      for (uint32_t j = 0; j < fd->count; j++) {
        link_t l = link_of(o, e, f, j);
        void *want = l.null ? NULL : addr_of(l, true), *got;
        memcpy(&got, p + fd->wide_offset + 8 * j, sizeof got);
        check(got == want,
              "object %u (%s) element %u field %s[%u]: %p, expected %p "
              "(object %u element %u field %d)", o, g->name, e, fd->name, j,
              got, want, l.obj, l.elem, l.field);
      }
    }
  }
  return fields;
}

int main(int argc, char **argv) {
  uint64_t seed = 1, mb = 12;
  bool both_kinds = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--both-page-kinds"))
      both_kinds = true;
    else if (!strncmp(argv[i], "--seed=", 7))
      seed = strtoull(argv[i] + 7, NULL, 10);
    else if (!strncmp(argv[i], "--mb=", 5))
      mb = strtoull(argv[i] + 5, NULL, 10);
    else
      fail_msg("usage: switch_model_test [--seed=N] [--mb=N] [--both-page-kinds]");
  }
  rs = seed * 0x9E3779B97F4A7C15ull + 1;
  cp__switch_parallel_bytes = 0; /* helpers (COMPACTPTR_SWITCH_THREADS) too */
  if (both_kinds)
    cp__switch_fresh_huge_min = UINT64_MAX;
  for (int k = 0; k < NTYPES; k++)
    make_type(k);
  double wsum = 0;
  for (int k = 0; k < NTYPES; k++)
    wsum += types[k].weight;

  /* Build: about mb MiB of compact objects. */
  uint32_t cap = (uint32_t)(mb << 20) / 8;
  objs = calloc(cap, sizeof *objs);
  roots = cp_root_array_alloc(cap);
  check(objs && roots, "out of memory");
  uint64_t bytes = 0;
  while (bytes < (mb << 20) && nobjs < cap) {
    double x = (double)rnd(1u << 30) / (1u << 30) * wsum;
    int t = 0;
    while (t < NTYPES - 1 && x >= types[t].weight)
      x -= types[t++].weight;
    uint32_t n = 1, r = rnd(1000);
    if (r < 80)
      n = 2 + rnd(7); /* a small array: a slab of its size class */
    else if (r < 83)
      n = 200 + rnd(1500); /* a block, most of the time */
    objs[nobjs] = (obj_t){(uint16_t)t, 0, n};
    roots[nobjs] = n == 1 ? cp_alloc(&types[t].d) : cp_alloc_array(&types[t].d, n);
    bytes += (uint64_t)n * types[t].d.compact_size;
    nobjs++;
  }
  /* A quarter die; links go to survivors only. */
  for (uint32_t o = 0; o < nobjs; o++)
    objs[o].dead = rnd(4) == 0;
  for (int k = 0; k < NTYPES; k++)
    live_of[k] = malloc(((size_t)nobjs + 1) * sizeof(uint32_t));
  for (uint32_t o = 0; o < nobjs; o++)
    if (!objs[o].dead)
      live_of[objs[o].type][nlive_of[objs[o].type]++] = o;
  for (uint32_t o = 0; o < nobjs; o++)
    if (!objs[o].dead)
      fill(o);
  for (uint32_t o = 0; o < nobjs; o++)
    if (objs[o].dead) {
      cp_free(roots[o]);
      roots[o] = NULL;
    }

  uint64_t compact_pages = cp__compact_arena.used_pages;
  cp_switch_to_wide();
  check(!cp_is_compact(), "still compact after the switch");

  uint64_t fields = 0, live = 0;
  for (uint32_t o = 0; o < nobjs; o++)
    if (!objs[o].dead) {
      fields += check_wide(o);
      live++;
    }
  /* Every compact chunk that held slabs went during the copy (moved into
   * the wide heap or returned) or waits in the pool of at most 8. */
  uint64_t chunks = (compact_pages << CP_PAGE_SHIFT) >> CP_COMMIT_SHIFT;
  uint64_t gone = cp__switch_chunks_moved + cp__switch_chunks_returned;
  check(gone + 8 >= chunks,
        "%llu of about %llu compact chunks went during the switch",
        (unsigned long long)gone, (unsigned long long)chunks);
  /* After the first 8 MiB probe of fresh huge pages, judged slow, the copy
   * must have tried 4 KiB pages. */
  if (both_kinds)
    check(cp__switch_chunks_small > 0,
          "no wide chunk was backed with 4 KiB pages (%llu fresh chunks)",
          (unsigned long long)cp__switch_chunks_fresh);
  const char *want = getenv("COMPACTPTR_SWITCH_THREADS");
  if (want)
    check(cp__switch_helpers + 1 == (uint32_t)atoi(want),
          "%u threads copied, COMPACTPTR_SWITCH_THREADS=%s",
          cp__switch_helpers + 1, want);
  printf("seed %llu: %u types, %llu live objects of %u, %llu fields checked, "
         "%llu MiB compact; %llu chunks moved, %llu returned, %llu fresh "
         "(%llu of 4 KiB pages), %u threads\n",
         (unsigned long long)seed, NTYPES, (unsigned long long)live, nobjs,
         (unsigned long long)fields, (unsigned long long)(bytes >> 20),
         (unsigned long long)cp__switch_chunks_moved,
         (unsigned long long)cp__switch_chunks_returned,
         (unsigned long long)cp__switch_chunks_fresh,
         (unsigned long long)cp__switch_chunks_small, cp__switch_helpers + 1);
  return 0;
}
