/*
 * verify.c - COMPACTPTR_VERIFY: walk the whole heap around the switch.
 *
 * Every live object of every type is visited; every compact pointer in it
 * (handle in compact mode, native pointer in wide mode) must name the start
 * or a field of a live object of the field's declared type: an object of
 * that type, of a type that begins with it or shares its first fields (C
 * allows both), or a value of it embedded in another object at any depth
 * (`&village->hosp.waiting`, the member an intrusive list links through).
 * A pointer the verifier cannot accept stops the program, with one
 * exception C itself makes: holding a pointer to freed memory is legal
 * until it is used (a field still naming an array that realloc moved, a
 * link not yet cleared after a free), so fields naming freed memory are
 * reported, not stopped on; the switch leaves them naming the same place
 * (a freed slot's counterpart, or the address of a released run), and the
 * digest names them the same way on both sides.  Roots may name freed
 * objects too, but never the wrong type.  The digest hashes object contents and links in a form
 * that does not depend on the layout: an object is named by (type, slab
 * position, slot index) and a pointer by its target's name plus the
 * compact-layout offset it points at.  The switch compares the digests taken
 * before and after it.
 */
#include "internal.h"

#include <string.h>

static inline uint64_t mix(uint64_t h, uint64_t v) {
  /* splitmix64 finaliser over the running hash */
  uint64_t z = h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static uint64_t hash_bytes(uint64_t h, const unsigned char *p, uint32_t n) {
  while (n >= 8) {
    uint64_t v;
    memcpy(&v, p, 8);
    h = mix(h, v);
    p += 8;
    n -= 8;
  }
  uint64_t v = 0;
  memcpy(&v, p, n);
  return mix(h, v ^ ((uint64_t)n << 56));
}

/* Where a pointer was read: a handle run of an object, or a root slot. */
typedef struct where {
  const char *when;
  const void *at;       /* the object, or the root slot */
  const cp_type_t *type; /* the object's type; NULL for a root */
  uint32_t from;        /* compact offset of the handle run */
} where_t;

/* The name of the handle field w reads from, or "?". */
static const char *field_name(const where_t *w) {
  const cp_type_desc_t *d = w->type->desc;
  for (uint32_t k = 0; k < d->nfields; k++)
    if ((d->fields[k].kind == CP_FIELD_HANDLE ||
         d->fields[k].kind == CP_FIELD_SLOT ||
         d->fields[k].kind == CP_FIELD_ADDRESS ||
         d->fields[k].kind == CP_FIELD_FLEX) &&
        d->fields[k].compact_offset == w->from)
      return d->fields[k].name;
  return "?";
}

static _Noreturn void bad(const where_t *w, const void *p, const char *why) {
  if (!w->type)
    cp__fatal("verify (%s): root slot %p holds %p, %s", w->when, w->at, p,
              why);
  /* Only the failure path names the field. */
  const cp_type_desc_t *d = w->type->desc;
  const char *field = field_name(w);
  cp__fatal("verify (%s): field '%s' of the '%s' object at %p holds %p, %s",
            w->when, field, d->name, w->at, p, why);
}

/* Fields naming freed memory, reported at the end of a walk. */
enum { DANGLING_SHOWN = 5 };
static uint64_t dangling_fields;

static void report_dangling(const where_t *w, const void *p, const char *what) {
  if (dangling_fields++ >= DANGLING_SHOWN)
    return;
  const cp_type_desc_t *d = w->type->desc;
  const char *field = field_name(w);
  fprintf(stderr,
          "compactptr: verify (%s): field '%s' of the '%s' object at %p "
          "holds %p, %s: reported, not an error (C allows holding a pointer "
          "to freed memory until it is used)\n",
          w->when, field, d->name, w->at, p, what);
}

/* Layout-independent name of the place p points at. */
static uint64_t canon(const void *p, const cp_type_t *expect, bool is_root,
                      const where_t *w) {
  if (!p)
    return 0;
  cp_arena_t *a = cp__current_arena();
  /* A root made by container_of from a member that is no element is named
   * by the member's place (translate_root). */
  const cp_field_desc_t *f =
      is_root && expect ? cp__container_member(a, p, expect, cp__wide) : NULL;
  if (f)
    return mix(mix(7, (uint64_t)(f - expect->desc->fields)),
               canon((const char *)p +
                         (cp__wide ? f->wide_offset : f->compact_offset),
                     cp__type_peek(f->target), true, w));
  if (!cp__arena_contains(a, p))
    return mix(1, (uint64_t)(uintptr_t)p); /* not in the heap: unchanged */
  cp_slab_t *s = cp__slab_owning(a, p);
  if (!s) {
    /* A dangling root: the switch leaves it as is, so its address is its
     * name on both sides. */
    if (!is_root)
      report_dangling(w, p, "which is inside the arena but in no slab "
                            "(memory freed and given back)");
    return mix(1, (uint64_t)(uintptr_t)p);
  }
  cp_place_t pl = cp__slab_locate(s, (uint64_t)((const char *)p - s->start));
  uint64_t i = pl.slot, rem = pl.rem;
  bool live = s->kind == CP_BLOCK
                  ? pl.elem < s->count || (pl.elem == s->count && rem == 0)
                  : i < s->bump && cp__slot_is_live(s, (uint32_t)i);
  /* The start of a free slot right after a live one is one past the end of
   * the object or array in that one (`end = a + n`), as for blocks. */
  bool past = false;
  if (!live && s->kind == CP_SLAB && i > 0 && pl.elem == 0 && rem == 0 &&
      i - 1 < s->bump && cp__slot_is_live(s, (uint32_t)(i - 1))) {
    live = past = true;
    i--;
    pl.elem = s->elems;
  }
  static char why[200];
  if (expect && s->type != expect && !cp__may_name(s->type->desc, expect) &&
      !(live && cp__embeds_place(s, pl, expect, cp__wide))) {
    snprintf(why, sizeof why, "a%s '%s' object, where a '%s' is expected%s",
             is_root ? ""
             : live  ? " live"
                     : " free slot of a",
             s->type->desc->name, expect->desc->name,
             is_root ? "" : " (the memory it named was freed and reused)");
    if (is_root)
      bad(w, p, why);
    /* A field still naming memory freed and since reused by another type
     * (a work item dequeued with its `next` as it was) is legal C while it
     * is not followed, as for memory not reused. */
    report_dangling(w, p, why);
  } else if (!live && !is_root) {
    report_dangling(w, p,
                    "which is not a live object (freed, or never "
                    "allocated)");
  }
  /* Inside a flexible array member: named by the offset in the member. */
  uint64_t in = pl.elem * s->elem + rem,
           at = cp__wide ? s->type->flex_wide : s->type->flex_compact;
  if (s->type->flex && in >= at && !past) {
    /* By element and the compact offset in it: an element's size is the
     * layout's (a handle 4 bytes compact, 8 wide). */
    const cp_type_t *t = s->type;
    uint64_t esz = cp__wide ? t->flex_welem : t->flex_celem,
             r = (in - at) % esz;
    if (cp__wide && t->flex_kind == CP_FIELD_STRUCT)
      r = cp__unmap_offset(t->flex_target, r);
    pl.elem = 0;
    rem = (uint64_t)1 << 60 | (in - at) / esz << 20 | r;
  } else if (cp__wide) {
    rem = cp__unmap_offset(s->type, rem);
  }
  uint64_t h = mix(3 + live, s->type->id);
  h = mix(h, s->seq);
  h = mix(h, i);
  h = mix(h, pl.elem);
  return mix(h, rem);
}

typedef struct root_ctx {
  cp_digest_t *d;
  const char *when;
} root_ctx_t;

static void visit_root(void **slot, cp_type_t *target, const char *name,
                       void *ctx) {
  (void)name;
  root_ctx_t *c = ctx;
  if (!*slot)
    return;
  where_t w = {c->when, slot, NULL, 0};
  c->d->roots++;
  c->d->root_hash += mix(canon(*slot, target, true, &w), 0x5eed);
}

static uint64_t digest_object(const cp_type_t *t, const char *obj,
                              uint64_t id, const char *when) {
  bool wide = cp__wide;
  uint64_t h = id;
  for (uint32_t i = 0; i < t->nops; i++) {
    const cp_copy_op_t *op = &t->ops[i];
    const char *f = obj + (wide ? op->to : op->from);
    if (op->kind == CP_FIELD_BYTES) {
      h = hash_bytes(h, (const unsigned char *)f, op->len);
      continue;
    }
    for (uint32_t j = 0; j < op->len; j++) {
      const void *p = wide || op->kind == CP_FIELD_SLOT
                          ? ((void *const *)f)[j]
                          : cp_decode(((const cp_handle_t *)f)[j]);
      where_t w = {when, obj, t, op->from};
      h = mix(h, canon(p, op->target, false, &w));
    }
  }
  return h;
}

/* An object of a type with a flexible array member, of k objects' room:
 * its fields, then the member's elements as the switch copies them: as
 * bytes, as the objects its compact pointers name, or as values. */
static uint64_t digest_flex(const cp_type_t *t, const char *obj, uint64_t k,
                            uint64_t id, const char *when) {
  uint64_t h = digest_object(t, obj, id, when);
  const char *m = obj + (cp__wide ? t->flex_wide : t->flex_compact);
  if (t->flex_kind == CP_FIELD_BYTES)
    return hash_bytes(h, (const unsigned char *)m, cp__flex_bytes(t, k));
  uint64_t esz = cp__wide ? t->flex_welem : t->flex_celem;
  for (uint64_t j = 0, n = cp__flex_elems(t, k); j < n; j++) {
    if (t->flex_kind == CP_FIELD_STRUCT) {
      h = mix(h, digest_object(t->flex_target, m + j * esz, j, when));
      continue;
    }
    const void *p = cp__wide ? ((void *const *)m)[j]
                             : cp_decode(((const cp_handle_t *)m)[j]);
    where_t w = {when, obj, t, t->flex_compact};
    h = mix(h, canon(p, t->flex_target, false, &w));
  }
  return h;
}

void cp__verify_heap(cp_digest_t *d, const char *when) {
  memset(d, 0, sizeof *d);
  dangling_fields = 0;
  for (uint32_t k = 0; k < cp__ntypes; k++) {
    cp_type_t *t = cp__types[k];
    uint64_t count = 0;
    for (cp_slab_t *s = t->all; s; s = s->next_all) {
      if (!cp__slab_is_valid(s))
        cp__fatal("verify (%s): a slab of '%s' at %p is inconsistent (free "
                  "list, live bitmap and counts disagree)",
                  when, t->desc->name, (void *)s->start);
      uint64_t base = mix(mix(t->id, s->seq), 0);
      if (t->flex) {
        /* One object a slot (or a block), whatever its room. */
        if (s->kind == CP_BLOCK) {
          d->hash += digest_flex(t, s->start, s->count, mix(base, 0), when);
          count++;
          continue;
        }
        for (uint32_t i = 0; i < s->bump; i++)
          if (cp__slot_is_live(s, i)) {
            d->hash += digest_flex(t, s->start + (size_t)i * s->slot, s->elems,
                                   mix(base, i), when);
            count++;
          }
        continue;
      }
      if (s->kind == CP_BLOCK) {
        for (uint64_t e = 0; e < s->count; e++)
          d->hash += digest_object(t, s->start + e * s->elem,
                                   mix(mix(base, 0), e), when);
        count += s->count;
        continue;
      }
      for (uint32_t i = 0; i < s->bump; i++) {
        if (!cp__slot_is_live(s, i))
          continue;
        for (uint32_t e = 0; e < s->elems; e++)
          d->hash += digest_object(t, s->start + (size_t)i * s->slot +
                                          (size_t)e * s->elem,
                                   mix(mix(base, i), e), when);
        count += s->elems;
      }
    }
    d->objects += count;
    d->type_hash = mix(d->type_hash, mix(t->id, count));
  }
  root_ctx_t c = {d, when};
  cp__roots_each(visit_root, &c);
  if (dangling_fields > DANGLING_SHOWN)
    fprintf(stderr,
            "compactptr: verify (%s): %llu fields name freed memory in all "
            "(%llu more not listed); the switch leaves them as they are, or "
            "moves them with the object now there\n",
            when, (unsigned long long)dangling_fields,
            (unsigned long long)(dangling_fields - DANGLING_SHOWN));
}
