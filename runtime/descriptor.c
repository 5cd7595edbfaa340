/*
 * descriptor.c - the type registry: from generated descriptors to runtime
 * types.
 *
 * Every translation unit built with the plugin carries one descriptor per
 * compact type it uses, in the linker section `compactptr_types`, and a
 * weak, hidden module record whose bounds come from the linker's
 * __start_/__stop_ symbols.  The first time the runtime meets a descriptor
 * (cp_alloc and friends resolve desc->rt lazily) it registers the whole
 * module: descriptors with the same name merge into one runtime type when
 * their layouts agree, and the program stops, naming the type and both
 * layouts, when they do not.  Nothing is registered by hand.  Each module
 * also registers itself when it is loaded (cp__module_load, from a
 * constructor CP_DEFINE_MODULE defines): a module that never allocates
 * (a program whose objects all come from a shared library) has roots the
 * switch must translate.
 *
 * Type records sit in one mapping, CP_TYPE_STRIDE bytes apart in id order
 * (the first CP_FAST_TYPES of them), so that a descriptor's rt alone says
 * where the type's bins are in a thread's heap (cp__rt_bin): the
 * allocation fast path reads nothing of the record itself.
 *
 * A runtime type also gets its copy program: the fields flattened (nested
 * structs expanded, adjacent plain bytes merged) into the list of byte runs
 * and handle runs that the switch and the verifier interpret.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dl_iterate_phdr */
#endif
#include "internal.h"

#include <link.h>
#include <stdlib.h>
#include <string.h>

cp_type_t **cp__types;
uint32_t cp__ntypes;
static uint32_t types_cap;
cp_module_t *cp__modules;
uintptr_t cp__type_base;

void cp__types_init(void) {
  size_t bytes = (size_t)CP_FAST_TYPES * CP_TYPE_STRIDE;
  void *m = cp__os_alloc_zeroed(bytes);
  if (!m)
    cp__fatal_no_memory("cannot map %zu bytes for the type registry", bytes);
  cp__type_base = (uintptr_t)m;
}

static cp_type_t *type_record_new(uint32_t id) {
  if (id < CP_FAST_TYPES)
    return (cp_type_t *)(cp__type_base + (size_t)id * CP_TYPE_STRIDE);
  /* Beyond the mapping: found by the slow paths only. */
  cp_type_t *t = calloc(1, sizeof *t);
  if (!t)
    cp__fatal("out of memory registering type %u", id);
  return t;
}

static const char *build_name(uint32_t b) {
  switch (b) {
  case CP_BUILD_SWITCHABLE: return "switchable";
  case CP_BUILD_COMPACT_ONLY: return "compact-only";
  case CP_BUILD_WIDE: return "wide";
  default: return "unknown";
  }
}

static void check_desc(const cp_type_desc_t *d) {
  const char *name = d->name ? d->name : "(unnamed)";
  if (d->abi != CP_ABI_VERSION)
    cp__fatal("type '%s' was compiled for descriptor ABI %u; this runtime "
              "reads ABI %u (rebuild with the matching plugin)",
              name, d->abi, CP_ABI_VERSION);
  if (d->granule_shift != CP_GRANULE_SHIFT)
    cp__fatal("type '%s' was compiled for %u-byte granules; this runtime uses "
              "%u-byte granules (plugin and runtime must be built with the "
              "same COMPACTPTR_GRANULE_SHIFT)",
              name, d->granule_shift < 16 ? 1u << d->granule_shift : 0,
              (unsigned)CP_GRANULE);
  if (!d->name || !d->compact_size || !d->wide_size ||
      d->compact_align == 0 || d->wide_align == 0 ||
      (d->compact_align & (d->compact_align - 1)) ||
      (d->wide_align & (d->wide_align - 1)))
    cp__fatal("type '%s': malformed descriptor (sizes %u/%u, alignments "
              "%u/%u)", name, d->compact_size, d->wide_size, d->compact_align,
              d->wide_align);
  if (d->compact_size % d->compact_align || d->wide_size % d->wide_align)
    cp__fatal("type '%s': malformed descriptor (size %u/%u is not a multiple "
              "of the alignment %u/%u, as a C sizeof always is)", name,
              d->compact_size, d->wide_size, d->compact_align, d->wide_align);
  if (d->compact_align > CP_PAGE_SIZE || d->wide_align > CP_PAGE_SIZE)
    cp__fatal("type '%s': alignment %u/%u is above the %zu-byte page; "
              "compactptr cannot place such objects", name, d->compact_align,
              d->wide_align, CP_PAGE_SIZE);
  if (d->nfields && !d->fields)
    cp__fatal("type '%s': malformed descriptor (%u fields, no field table)",
              name, d->nfields);
  if (d->compact_size % CP_GRANULE)
    cp__fatal("type '%s': compact size %u is not a multiple of the %u-byte "
              "granule (array elements would have no handle)",
              name, d->compact_size, (unsigned)CP_GRANULE);
  for (uint32_t i = 0; i < d->nfields; i++) {
    const cp_field_desc_t *f = &d->fields[i];
    uint64_t csz, wsz;
    switch (f->kind) {
    case CP_FIELD_BYTES: csz = wsz = f->size; break;
    case CP_FIELD_HANDLE:
      if (f->compact_offset % sizeof(cp_handle_t) ||
          f->wide_offset % sizeof(void *))
        cp__fatal("type '%s': handle field '%s' at offset %u/%u is not "
                  "aligned to %zu/%zu bytes", name, f->name ? f->name : "?",
                  f->compact_offset, f->wide_offset, sizeof(cp_handle_t),
                  sizeof(void *));
      csz = (uint64_t)f->count * sizeof(cp_handle_t);
      wsz = (uint64_t)f->count * sizeof(void *);
      break;
    case CP_FIELD_SLOT:
      if (f->compact_offset % sizeof(void *) ||
          f->wide_offset % sizeof(void *) ||
          f->size > (CP_SLOT_USE_HANDLES | CP_SLOT_USE_NATIVE))
        cp__fatal("type '%s': malformed slot-pointer field '%s' (offset "
                  "%u/%u, use %u)",
                  name, f->name ? f->name : "?", f->compact_offset,
                  f->wide_offset, f->size);
      csz = wsz = (uint64_t)f->count * sizeof(void *);
      break;
    case CP_FIELD_ADDRESS:
      if (f->size || f->target)
        cp__fatal("type '%s': malformed address field '%s' (size %u, "
                  "a target type)",
                  name, f->name ? f->name : "?", f->size);
      csz = wsz = (uint64_t)f->count * sizeof(void *);
      break;
    case CP_FIELD_STRUCT:
      if (!f->target)
        cp__fatal("type '%s': nested field '%s' has no type", name, f->name);
      csz = (uint64_t)f->count * f->target->compact_size;
      wsz = (uint64_t)f->count * f->target->wide_size;
      break;
    case CP_FIELD_FLEX:
      /* Last, no elements of its own in the fixed part (C's sizeof may
       * reach past its offset: tail padding its first elements use). */
      if (i + 1 != d->nfields || f->size == 0)
        cp__fatal("type '%s': flexible array member '%s' is not the last "
                  "field or has no element size",
                  name, f->name ? f->name : "?");
      /* `count` is the elements' kind.  Compact pointers count their room
       * in native pointers (the program's sizeof), aligned as handles;
       * values, in the wide layout's size of their type. */
      if (f->count == CP_FIELD_HANDLE
              ? !f->target || f->size != sizeof(void *) ||
                    f->compact_offset % sizeof(cp_handle_t) ||
                    f->wide_offset % sizeof(void *)
          : f->count == CP_FIELD_STRUCT
              ? !f->target || f->size != f->target->wide_size ||
                    !f->target->compact_align || !f->target->wide_align ||
                    f->compact_offset % f->target->compact_align ||
                    f->wide_offset % f->target->wide_align
              : f->count != CP_FIELD_BYTES || f->target)
        cp__fatal("type '%s': flexible array member '%s' has element kind "
                  "%u, size %u and offsets %u/%u, which do not fit (compact "
                  "pointers: %zu bytes; values: their type's wide size; "
                  "aligned in both layouts)",
                  name, f->name ? f->name : "?", f->count, f->size,
                  f->compact_offset, f->wide_offset, sizeof(void *));
      csz = wsz = 0;
      break;
    default:
      cp__fatal("type '%s': field '%s' has unknown kind %u", name, f->name,
                f->kind);
    }
    if (f->compact_offset + csz > d->compact_size ||
        f->wide_offset + wsz > d->wide_size)
      cp__fatal("type '%s': field '%s' lies outside the object", name,
                f->name ? f->name : "?");
  }
  if (!cp__build_known) {
    cp__build = d->build;
    cp__build_known = true;
  } else if (d->build != cp__build) {
    cp__fatal("type '%s' was compiled in %s mode but other code in this "
              "program was compiled in %s mode; build every translation unit "
              "with the same -fplugin-arg-compactptr-mode",
              name, build_name(d->build), build_name(cp__build));
  }
}

static const char *target_name(const cp_field_desc_t *f) {
  return f->target && f->target->name ? f->target->name : "";
}

static void describe(char *buf, size_t n, const cp_type_desc_t *d) {
  size_t k = (size_t)snprintf(buf, n, "compact %u bytes/align %u, wide %u "
                              "bytes/align %u, fields",
                              d->compact_size, d->compact_align, d->wide_size,
                              d->wide_align);
  for (uint32_t i = 0; i < d->nfields && k < n; i++) {
    const cp_field_desc_t *f = &d->fields[i];
    k += (size_t)snprintf(buf + k, n - k, " %s@%u/%u", f->name ? f->name : "?",
                          f->compact_offset, f->wide_offset);
  }
}

/* The two fields are the same in both layouts. */
static bool same_field(const cp_field_desc_t *x, const cp_field_desc_t *y) {
  return x->compact_offset == y->compact_offset &&
         x->wide_offset == y->wide_offset && x->kind == y->kind &&
         x->count == y->count &&
         (x->size == y->size || x->kind == CP_FIELD_SLOT) &&
         strcmp(target_name(x), target_name(y)) == 0;
}

static bool same_layout(const cp_type_desc_t *a, const cp_type_desc_t *b) {
  if (a->compact_size != b->compact_size || a->wide_size != b->wide_size ||
      a->compact_align != b->compact_align || a->wide_align != b->wide_align ||
      a->nfields != b->nfields)
    return false;
  for (uint32_t i = 0; i < a->nfields; i++)
    if (!same_field(&a->fields[i], &b->fields[i]))
      return false;
  return true;
}

/* Why two layouts of one type differ, where a field is a compact pointer
 * in one and a plain pointer in the other: a translation unit that sees
 * the pointee only declared (`struct node;`) cannot know it is compact.
 * Empty otherwise. */
static void layout_hint(char *buf, size_t n, const cp_type_desc_t *a,
                        const cp_type_desc_t *b) {
  buf[0] = 0;
  for (int pass = 0; pass < 2; pass++) {
    const cp_type_desc_t *h = pass ? b : a, *p = pass ? a : b;
    for (uint32_t i = 0; i < h->nfields; i++) {
      const cp_field_desc_t *f = &h->fields[i];
      if (f->kind != CP_FIELD_HANDLE || !f->name)
        continue;
      for (uint32_t j = 0; j < p->nfields; j++) {
        const cp_field_desc_t *g = &p->fields[j];
        if ((g->kind == CP_FIELD_BYTES || g->kind == CP_FIELD_ADDRESS) &&
            g->name && strcmp(g->name, f->name) == 0) {
          snprintf(buf, n,
                   " (field '%s' is a compact pointer to '%s' in one and a "
                   "plain pointer in the other: a translation unit that sees "
                   "'%s' only declared, not defined, does not know it is "
                   "compact; include its definition there)",
                   f->name, target_name(f), target_name(f));
          return;
        }
      }
    }
  }
}

static cp_type_t *register_desc(cp_type_desc_t *d);

/* Adds d's uses of its slot-pointer fields to t's.  The plugin reads a
 * `struct node **` field with a check of the address (a 4-byte handle
 * slot in the arena, an 8-byte native slot elsewhere) only in translation
 * units that see a handle field's address stored into it; a unit that
 * reads it as a plain pointer while another stores such addresses would
 * read a handle as a pointer. */
static uint8_t *slot_uses_of(cp_type_t *t) {
  if (!t->slot_uses && !(t->slot_uses = calloc(t->desc->nfields, 1)))
    cp__fatal("out of memory registering type '%s'", t->desc->name);
  return t->slot_uses;
}

/* a and b open with the same fields up to and including the one at wide
 * offset `upto` (C's common initial sequence: code may read one through a
 * pointer to the other, a "base" struct's functions handed a "derived"
 * one). */
static bool open_alike(const cp_type_desc_t *a, const cp_type_desc_t *b,
                       uint32_t upto) {
  uint32_t na = 0, nb = 0;
  for (uint32_t i = 0; i < a->nfields; i++) {
    if (a->fields[i].wide_offset > upto)
      continue;
    na++;
    uint32_t j = 0;
    while (j < b->nfields &&
           b->fields[j].wide_offset != a->fields[i].wide_offset)
      j++;
    if (j == b->nfields || !same_field(&a->fields[i], &b->fields[j]))
      return false;
  }
  for (uint32_t j = 0; j < b->nfields; j++)
    nb += b->fields[j].wide_offset <= upto;
  return na == nb;
}

static void slot_use_conflict(const char *field, const char *type,
                              const char *twin) {
  cp__fatal("field '%s' of '%s'%s%s%s holds addresses of compact-pointer "
            "fields (`&p->next`) in one translation unit and is read as a "
            "plain pointer in another, which does not see such a store and "
            "would read a 4-byte handle as an 8-byte pointer; read the field "
            "only in files that also store such an address into it, or keep "
            "it in one file",
            field, type, twin ? " (or of '" : "", twin ? twin : "",
            twin ? "', which opens with the same fields)" : "");
}

static void add_slot_uses(cp_type_t *t, const cp_type_desc_t *d) {
  if (d->build == CP_BUILD_WIDE) /* no handle slots, no checked reads */
    return;
  for (uint32_t i = 0; i < d->nfields; i++) {
    const cp_field_desc_t *f = &d->fields[i];
    if (f->kind != CP_FIELD_SLOT || !f->size)
      continue;
    uint8_t *use = &slot_uses_of(t)[i];
    *use |= (uint8_t)f->size;
    if (*use == (CP_SLOT_USE_HANDLES | CP_SLOT_USE_NATIVE))
      slot_use_conflict(f->name ? f->name : "?", d->name, NULL);
    /* The same field of a type that opens alike is the same memory. */
    for (uint32_t k = 0; k < cp__ntypes; k++) {
      cp_type_t *u = cp__types[k];
      if (u == t || !open_alike(t->desc, u->desc, f->wide_offset))
        continue;
      uint32_t j = 0;
      while (u->desc->fields[j].wide_offset != f->wide_offset)
        j++;
      uint8_t *twin = &slot_uses_of(u)[j];
      *twin |= *use;
      *use |= *twin;
      if (*use == (CP_SLOT_USE_HANDLES | CP_SLOT_USE_NATIVE))
        slot_use_conflict(f->name ? f->name : "?", d->name, u->desc->name);
    }
  }
}

static uint32_t round_up(uint32_t v, uint32_t a) { return (v + a - 1) / a * a; }

/* Appends the flattened fields of d, placed at (cbase, wbase), to t's ops. */
static void flatten(cp_type_t *t, const cp_type_desc_t *d, uint32_t cbase,
                    uint32_t wbase, uint32_t *cap, int depth) {
  if (depth > 32)
    cp__fatal("type '%s': nested fields are more than 32 levels deep "
              "(a type that contains itself?)", t->desc->name);
  for (uint32_t i = 0; i < d->nfields; i++) {
    const cp_field_desc_t *f = &d->fields[i];
    if (f->kind == CP_FIELD_FLEX) {
      /* No op: the room past it is copied as bytes (cp__flex_bytes) or
       * element by element (cp__flex_elems).  C keeps a struct with such a
       * member out of other structs. */
      if (depth > 0)
        cp__fatal("type '%s': nested type '%s' has a flexible array member",
                  t->desc->name, d->name);
      t->flex = true;
      t->flex_kind = f->count;
      t->flex_compact = f->compact_offset;
      t->flex_wide = f->wide_offset;
      t->flex_target = f->target ? register_desc(f->target) : NULL;
      t->flex_celem = f->count == CP_FIELD_HANDLE   ? sizeof(cp_handle_t)
                      : f->count == CP_FIELD_STRUCT ? f->target->compact_size
                                                    : 1;
      t->flex_welem = f->count == CP_FIELD_HANDLE   ? sizeof(void *)
                      : f->count == CP_FIELD_STRUCT ? f->target->wide_size
                                                    : 1;
      continue;
    }
    if (f->kind == CP_FIELD_STRUCT) {
      /* The nested type is checked (and registered) like any other: its
       * fields become ops of t, so one lying outside it would make the
       * switch copy outside t's objects. */
      register_desc(f->target);
      for (uint32_t j = 0; j < f->count; j++)
        flatten(t, f->target, cbase + f->compact_offset + j * f->target->compact_size,
                wbase + f->wide_offset + j * f->target->wide_size, cap,
                depth + 1);
      continue;
    }
    if (t->nops == *cap) {
      *cap = *cap ? *cap * 2 : 8;
      t->ops = realloc(t->ops, *cap * sizeof *t->ops);
      if (!t->ops)
        cp__fatal("out of memory building the layout of '%s'", t->desc->name);
    }
    cp_copy_op_t *op = &t->ops[t->nops];
    /* An untyped address is moved as a slot pointer's value is: whatever
     * place in a compact object it names. */
    op->kind = f->kind == CP_FIELD_ADDRESS ? CP_FIELD_SLOT : f->kind;
    op->from = cbase + f->compact_offset;
    op->to = wbase + f->wide_offset;
    op->len = f->kind == CP_FIELD_BYTES ? f->size : f->count;
    op->target = NULL;
    if (f->kind == CP_FIELD_HANDLE && f->target) {
      op->target = register_desc(f->target);
    }
    /* Merge with the previous run when both layouts are contiguous. */
    if (t->nops && op->kind == CP_FIELD_BYTES) {
      cp_copy_op_t *prev = &t->ops[t->nops - 1];
      if (prev->kind == CP_FIELD_BYTES && prev->from + prev->len == op->from &&
          prev->to + prev->len == op->to) {
        prev->len += op->len;
        continue;
      }
    }
    t->nops++;
  }
}

static cp_type_t *find_type(const char *name) {
  for (uint32_t i = 0; i < cp__ntypes; i++)
    if (strcmp(cp__types[i]->desc->name, name) == 0)
      return cp__types[i];
  return NULL;
}

/* Called with the lock held. */
static cp_type_t *register_desc(cp_type_desc_t *d) {
  if (d->rt)
    return d->rt;
  check_desc(d);
  cp_type_t *t = find_type(d->name);
  if (t) {
    if (!same_layout(t->desc, d)) {
      char a[480], b[480], why[320];
      describe(a, sizeof a, t->desc);
      describe(b, sizeof b, d);
      layout_hint(why, sizeof why, t->desc, d);
      cp__fatal("type '%s' has two different layouts in this program: {%s} "
                "and {%s}; every translation unit must see the same "
                "definition%s", d->name, a, b, why);
    }
    add_slot_uses(t, d);
    __atomic_store_n(&d->rt, t, __ATOMIC_RELEASE);
    return t;
  }
  t = type_record_new(cp__ntypes);
  t->desc = d;
  t->id = cp__ntypes;
  t->compact_slot = round_up(d->compact_size, (uint32_t)CP_GRANULE);
  if (t->compact_slot % d->compact_align)
    t->compact_slot = round_up(t->compact_slot, d->compact_align);
  /* The wide element is exactly the C size: wide heap arrays are indexed
   * with sizeof(T).  (Slots are rounded to 4 bytes by cp__slot_bytes.) */
  t->wide_slot = d->wide_size;
  t->slot = (cp__wide || cp__build == CP_BUILD_WIDE) ? t->wide_slot
                                                    : t->compact_slot;
  if (cp__ntypes == types_cap) {
    types_cap = types_cap ? types_cap * 2 : 16;
    cp__types = realloc(cp__types, types_cap * sizeof *cp__types);
    if (!cp__types)
      cp__fatal("out of memory registering type '%s'", d->name);
  }
  cp__types[cp__ntypes++] = t;
  /* Before flatten: self-referential types resolve to t.  Other threads
   * see t once its fields above are written. */
  __atomic_store_n(&d->rt, t, __ATOMIC_RELEASE);
  uint32_t cap = 0;
  flatten(t, d, 0, 0, &cap, 0);
  add_slot_uses(t, d);
  return t;
}

void cp__module_register(cp_module_t *m) {
  if (m->registered)
    return;
  m->registered = 1;
  m->next = cp__modules;
  cp__modules = m;
  if (m->types_begin)
    for (cp_type_desc_t *const *p = m->types_begin; p < m->types_end; p++)
      if (*p)
        register_desc(*p);
}

/* The address ranges of the loaded images of plugin-built modules (their
 * segments, .bss included): an address there is a global, which the
 * switch leaves alone in a root (a marker, `(struct node *)&marker`).
 * Recorded at load, so the switch asks the dynamic loader nothing (its
 * lock is taken by dlopen, which may run a module's constructor, which
 * takes the heap lock: the switch holds that one). */
typedef struct image_range {
  uintptr_t lo, hi;
} image_range_t;
static image_range_t *images;
static size_t nimages, images_cap;

typedef struct image_query {
  uintptr_t addr, lo, hi;
} image_query_t;

void cp__image_range(const struct dl_phdr_info *info, uintptr_t *lo,
                     uintptr_t *hi) {
  *lo = UINTPTR_MAX;
  *hi = 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD)
      continue;
    uintptr_t b = info->dlpi_addr + ph->p_vaddr;
    if (b < *lo)
      *lo = b;
    if (b + ph->p_memsz > *hi)
      *hi = b + ph->p_memsz;
  }
}

static int find_image(struct dl_phdr_info *info, size_t size, void *ctx) {
  (void)size;
  image_query_t *q = ctx;
  uintptr_t lo, hi;
  cp__image_range(info, &lo, &hi);
  if (q->addr < lo || q->addr >= hi)
    return 0;
  q->lo = lo;
  q->hi = hi;
  return 1;
}

bool cp__in_module_image(const void *p) {
  for (size_t i = 0; i < nimages; i++)
    if ((uintptr_t)p >= images[i].lo && (uintptr_t)p < images[i].hi)
      return true;
  return false;
}

size_t cp__module_images(void) { return nimages; }

CP_API void cp__module_load(cp_module_t *m) {
  cp__init();
  /* Every translation unit of a module runs this with the same m: the
   * first one records the image (and registers m), the others need not
   * ask the dynamic loader again. */
  cp__lock();
  bool seen = cp__in_module_image(m);
  cp__unlock();
  if (seen)
    return;
  image_query_t q = {(uintptr_t)m, 0, 0};
  dl_iterate_phdr(find_image, &q);
  cp__lock();
  cp__module_register(m);
  cp__heap_setup();
  if (q.hi && nimages == images_cap) {
    size_t cap = images_cap ? images_cap * 2 : 8;
    image_range_t *r = realloc(images, cap * sizeof *r);
    if (r) {
      images = r;
      images_cap = cap;
    }
  }
  if (q.hi && nimages < images_cap)
    images[nimages++] = (image_range_t){q.lo, q.hi};
  cp__unlock();
}

cp_type_t *cp__type_resolve(cp_type_desc_t *d) {
  cp_type_t *known = cp__type_peek(d);
  if (known)
    return known;
  cp__init();
  cp__lock();
  if (d->module)
    cp__module_register(d->module);
  cp_type_t *t = register_desc(d);
  cp__heap_setup();
  cp__unlock();
  return t;
}

/* After the switch: one line per type whose pointers some translation unit
 * casts to an integer or back (the plugin records the sites in the section
 * compactptr_casts), since such an integer still holds the object's
 * compact address. */
void cp__report_integer_casts(void) {
  enum { SHOWN = 6 };
  for (uint32_t k = 0; k < cp__ntypes; k++) {
    const cp_type_t *t = cp__types[k];
    char sites[512];
    size_t len = 0;
    uint64_t n = 0;
    sites[0] = 0;
    for (const cp_module_t *m = cp__modules; m; m = m->next)
      for (const cp_cast_site_t *c = m->casts_begin; c && c < m->casts_end;
           c++) {
        if (!c->type || !c->where || strcmp(c->type->name, t->desc->name))
          continue;
        if (n++ < SHOWN && len < sizeof sites) {
          int w = snprintf(sites + len, sizeof sites - len, "%s%s",
                           n > 1 ? ", " : "", c->where);
          len += w > 0 ? (size_t)w : 0;
        }
      }
    if (!n)
      continue;
    fprintf(stderr,
            "compactptr: warning: pointers to '%s' are made integers (cast, "
            "or their bytes read) or back at %llu site%s (%s%s): an integer "
            "or a hash taken before the switch still holds the object's "
            "compact address, which names nothing now (warned at compile "
            "time: -Wcompactptr-integer-cast)\n",
            t->desc->name, (unsigned long long)n, n == 1 ? "" : "s", sites,
            n > SHOWN ? ", ..." : "");
  }
}
