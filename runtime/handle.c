/*
 * handle.c - handles beyond the inline encode/decode of compactptr.h: the
 * error path of the encode check, the checked decode of
 * COMPACTPTR_DEBUG=1, and the translation of compact addresses to wide ones
 * that the switch applies to every handle and root.
 *
 * Translation is O(1): the page map gives the slab, a multiply by the slab's
 * reciprocal gives the slot index, and the slab's wide counterpart (same
 * slot count, wide slot size) gives the new address.  An address inside an
 * object keeps its place: its offset is mapped field by field from the
 * compact layout to the wide one.
 */
#include "internal.h"

/* The compact bytes op covers: [from, end) and its wide counterpart. */
static uint64_t op_end(const cp_copy_op_t *op) {
  return (uint64_t)op->from +
         (op->kind == CP_FIELD_HANDLE ? (uint64_t)op->len * sizeof(cp_handle_t)
          : op->kind == CP_FIELD_SLOT ? (uint64_t)op->len * sizeof(void *)
                                      : op->len);
}
/* A byte inside a handle keeps its place in the pointer that replaces it:
 * an untyped address one past an object's start (a tag in its low bit)
 * stays one past the wide copy's start. */
static uint64_t op_map(const cp_copy_op_t *op, uint64_t off) {
  if (op->kind == CP_FIELD_HANDLE)
    return op->to + (off - op->from) / sizeof(cp_handle_t) * sizeof(void *) +
           (off - op->from) % sizeof(cp_handle_t);
  return op->to + (off - op->from);
}

uint64_t cp__map_offset(const cp_type_t *t, uint64_t off) {
  if (off == 0)
    return 0;
  if (off >= t->desc->compact_size)
    return t->desc->wide_size; /* one past the end */
  /* Inside a field first (a pointer to a handle field, where plain data
   * ends right before it, is at the handle's start), then one past the
   * end of one: `n->name + sizeof n->name`, where padding follows, stays
   * one past the end in the wide layout. */
  for (int end = 0; end < 2; end++)
    for (uint32_t i = 0; i < t->nops; i++) {
      const cp_copy_op_t *op = &t->ops[i];
      if (op->kind == CP_FIELD_FLEX || op->kind == CP_FIELD_STRUCT ||
          off < op->from)
        continue;
      if (end ? off == op_end(op) : off < op_end(op))
        return op_map(op, off);
    }
  return t->desc->wide_size;
}

uint64_t cp__unmap_offset(const cp_type_t *t, uint64_t off) {
  if (off == 0)
    return 0;
  if (off >= t->desc->wide_size)
    return t->desc->compact_size;
  /* The inverse of cp__map_offset, in the same order. */
  for (int end = 0; end < 2; end++)
    for (uint32_t i = 0; i < t->nops; i++) {
      const cp_copy_op_t *op = &t->ops[i];
      bool h = op->kind == CP_FIELD_HANDLE;
      if (op->kind == CP_FIELD_FLEX || op->kind == CP_FIELD_STRUCT ||
          off < op->to)
        continue;
      uint64_t wend =
          (uint64_t)op->to + (h || op->kind == CP_FIELD_SLOT
                                  ? (uint64_t)op->len * sizeof(void *)
                                  : op->len);
      uint64_t in = off - op->to;
      if (end ? off == wend : off < wend)
        return op->from + (h ? in / sizeof(void *) * sizeof(cp_handle_t) +
                                   (in % sizeof(void *) < sizeof(cp_handle_t)
                                        ? in % sizeof(void *)
                                        : 0)
                             : in);
    }
  return t->desc->compact_size;
}

cp_slab_t *cp__slab_owning(const cp_arena_t *a, const void *p) {
  if (!cp__arena_contains(a, p))
    return NULL;
  uint32_t page = cp__arena_page(a, p);
  cp_slab_t *s = a->pagemap[page];
  /* Past one past the end of its last slot or element, an address in a
   * run names nothing (the tail of the run): NULL, as in a free run.  Only
   * a run's first byte can also be the end of the run below it. */
  if (s && (const char *)p != s->start)
    return (uint64_t)((const char *)p - s->start) <= cp__span_of(s) ? s : NULL;
  if (s && (s->kind == CP_BLOCK || cp__slot_is_live(s, 0)))
    return s; /* a live object starts here: it wins */
  cp_slab_t *below = page ? a->pagemap[page - 1] : NULL;
  if (below && below != s && below->start + cp__span_of(below) == (const char *)p)
    return below; /* one past the end of a block that fills its run */
  return s;
}

/* ---- what an address names ------------------------------------------- */

/* The field at offset 0 of both layouts: the struct's first field (the
 * plugin places a struct's first declared field at compact offset 0). */
static const cp_field_desc_t *first_field(const cp_type_desc_t *d) {
  for (uint32_t k = 0; k < d->nfields; k++)
    if (d->fields[k].compact_offset == 0 && d->fields[k].wide_offset == 0)
      return &d->fields[k];
  return NULL;
}

static bool same_field(const cp_field_desc_t *a, const cp_field_desc_t *b) {
  const char *ta = a->target ? a->target->name : "";
  const char *tb = b->target ? b->target->name : "";
  return a->kind == b->kind && a->count == b->count && a->size == b->size &&
         strcmp(ta, tb) == 0;
}

/* C lets a pointer to one struct point at an object of another that
 * begins with it (its first member, recursively) or shares its first
 * members (a common initial sequence: the "base struct" idiom); the plugin
 * accepts such casts and places the shared part at the same offsets in
 * both compact layouts.  Such an object is what the pointer may name. */
bool cp__may_name(const cp_type_desc_t *obj, const cp_type_t *expect) {
  const cp_field_desc_t *a = first_field(obj);
  const cp_field_desc_t *b = first_field(expect->desc);
  if (a && b && same_field(a, b))
    return true;
  for (const cp_type_desc_t *d = obj;
       (a = first_field(d)) && a->kind == CP_FIELD_STRUCT && a->target;
       d = a->target)
    if (strcmp(a->target->name, expect->desc->name) == 0)
      return true;
  return false;
}

/* A value of compact type `expect` starts at byte off of an object of type
 * d (in the current layout): d itself or a type it may stand for at offset
 * 0, or a struct field (an element of it, recursively) holding one.  This is
 * how a pointer to a list header embedded in a bigger object is told from a
 * pointer to the wrong type. */
static bool embeds_at(const cp_type_desc_t *d, uint64_t off,
                      const cp_type_t *expect, bool wide, int depth) {
  if (off == 0 && (d == expect->desc || strcmp(d->name, expect->desc->name) == 0))
    return true;
  if (depth > 16) /* a by-value nesting this deep is no real struct */
    return false;
  for (uint32_t k = 0; k < d->nfields; k++) {
    const cp_field_desc_t *f = &d->fields[k];
    if (f->kind != CP_FIELD_STRUCT || !f->target)
      continue;
    uint64_t at = wide ? f->wide_offset : f->compact_offset;
    uint64_t size = wide ? f->target->wide_size : f->target->compact_size;
    if (size == 0 || off < at || off >= at + (uint64_t)f->count * size)
      continue;
    uint64_t in = (off - at) % size;
    if (in == 0 && cp__may_name(f->target, expect))
      return true;
    if (embeds_at(f->target, in, expect, wide, depth + 1))
      return true;
  }
  return false;
}

bool cp__embeds(const cp_type_desc_t *d, uint64_t off, const cp_type_t *expect,
                bool wide) {
  return embeds_at(d, off, expect, wide, 0);
}

/* The same past the fixed part of an object of t with a flexible array
 * member of compact values: at byte `in` of the object, an element (`struct
 * level *l = &n->level[i]`) or a struct member of one. */
static bool flex_embeds(const cp_type_t *t, uint64_t in,
                        const cp_type_t *expect, bool wide) {
  if (!t->flex || t->flex_kind != CP_FIELD_STRUCT)
    return false;
  uint64_t at = wide ? t->flex_wide : t->flex_compact,
           size = wide ? t->flex_welem : t->flex_celem;
  if (in < at)
    return false;
  uint64_t r = (in - at) % size;
  return (r == 0 && cp__may_name(t->flex_target->desc, expect)) ||
         embeds_at(t->flex_target->desc, r, expect, wide, 1);
}

bool cp__embeds_place(const cp_slab_t *s, cp_place_t pl,
                      const cp_type_t *expect, bool wide) {
  return cp__embeds(s->type->desc, pl.rem, expect, wide) ||
         flex_embeds(s->type, pl.elem * s->elem + pl.rem, expect, wide);
}

/* Does p, in slab s (NULL: none), name a live object of type expect, or
 * one embedded in a bigger object (its start or a struct member's)? */
static bool names_live(const cp_slab_t *s, const void *p,
                       const cp_type_t *expect, bool wide) {
  if (!s)
    return false;
  cp_place_t pl = cp__slab_locate(s, (uint64_t)((const char *)p - s->start));
  bool live = s->kind == CP_BLOCK
                  ? pl.elem < s->count
                  : pl.slot < s->bump && cp__slot_is_live(s, (uint32_t)pl.slot);
  return live && ((pl.rem == 0 && cp__may_name(s->type->desc, expect)) ||
                  cp__embeds_place(s, pl, expect, wide));
}

const cp_field_desc_t *cp__container_member(const cp_arena_t *a, const void *p,
                                            const cp_type_t *t, bool wide) {
  /* In a run of t's own (an object, or one past the end of an array:
   * `end = a + n`, whose member offsets may reach into the next run): the
   * root's own place.  Also the common case, decided with one lookup. */
  const cp_slab_t *own = cp__slab_owning(a, p);
  if ((own && own->type == t) || names_live(own, p, t, wide))
    return NULL;
  for (uint32_t k = 0; k < t->desc->nfields; k++) {
    const cp_field_desc_t *f = &t->desc->fields[k];
    const cp_type_t *u = f->kind == CP_FIELD_STRUCT && f->target
                             ? cp__type_peek(f->target)
                             : NULL;
    const char *q =
        (const char *)p + (wide ? f->wide_offset : f->compact_offset);
    if (u && names_live(cp__slab_owning(a, q), q, u, wide))
      return f;
  }
  return NULL;
}

/* ---- translation --------------------------------------------------------- */

void *cp__translate(void *p) {
  cp_arena_t *a = &cp__compact_arena;
  if (!p || !cp__arena_contains(a, p))
    return p;
  cp_slab_t *s = cp__slab_owning(a, p);
  if (!s || !s->counterpart)
    return p; /* dangling: left as is, the verifier reports it */
  cp_place_t pl = cp__slab_locate(s, (uint64_t)((char *)p - s->start));
  const cp_slab_t *w = s->counterpart;
  /* In a flexible array member, past the first object's fields: the
   * member's bytes are at its own offset in the wide object. */
  uint64_t at;
  if (cp__flex_member(s->type, pl.elem * s->elem + pl.rem, &at))
    return w->start + pl.slot * w->slot + at;
  return w->start + pl.slot * w->slot + pl.elem * w->elem +
         cp__map_offset(s->type, pl.rem);
}

void *cp_decode_checked(cp_handle_t h) {
  if (!h)
    return NULL;
  if (cp__wide)
    cp__fatal("handle %#x decoded in wide mode: compact code ran after the "
              "switch", h);
  cp_arena_t *a = &cp__compact_arena;
  if (!cp__arena_is_reserved(a))
    cp__fatal("bad handle %#x: no object lives there (no compact object has "
              "been allocated yet)", h);
  void *p = cp_decode(h);
  cp_slab_t *s = cp__slab_owning(a, p);
  if (!s)
    cp__fatal("bad handle %#x (address %p): no object lives there", h, p);
  cp_place_t pl = cp__slab_locate(s, (uint64_t)((char *)p - s->start));
  const char *name = s->type->desc->name;
  /* One past the end of an array (`end = a + n` stored in a field) is a
   * valid handle, as the verifier and the switch take it: past the last
   * element of a block, or the start of the free slot after a live array.
   * Not after a single object: there a use after free of the next slot is
   * far likelier than a stored `&obj + 1`. */
  bool end = s->elems > 1 && pl.elem == 0 && pl.rem == 0 && pl.slot > 0 &&
             cp__slot_live_now(s, (uint32_t)(pl.slot - 1));
  if (s->kind == CP_BLOCK) {
    if (pl.elem > s->count || (pl.elem == s->count && pl.rem != 0))
      cp__fatal("bad handle %#x (address %p): past the end of a '%s' array",
                h, p, name);
    if (pl.elem == s->count)
      return p; /* one past the end */
  } else if (!cp__slot_live_now(s, (uint32_t)pl.slot)) {
    if (end)
      return p;
    cp__fatal("bad handle %#x (address %p): the '%s' %s there is free "
              "(use after free?)", h, p, name, s->elems > 1 ? "array" : "object");
  }
  if (pl.rem >= s->type->desc->compact_size)
    cp__fatal("bad handle %#x (address %p): inside the padding of a '%s' "
              "object", h, p, name);
  return p;
}

cp_handle_t cp_encode_checked(const void *p) {
  if (!p)
    return 0;
  if (cp__wide)
    cp__fatal("pointer %p encoded in wide mode: compact code ran after the "
              "switch", p);
  cp_arena_t *a = &cp__compact_arena;
  if ((uintptr_t)p & CP__UNREPRESENTABLE)
    cp__encode_unrepresentable(p);
  if (!cp__arena_is_reserved(a) || !cp__arena_contains(a, p))
    cp__fatal("pointer %p stored into a compact field is not in the compact "
              "arena: the object was not allocated by compactptr (a pool or "
              "bump allocator carving objects out of its own buffer, a "
              "wrapper around malloc, a stack or global object, or a "
              "translation unit built without the plugin?)", p);
  cp_handle_t h = (cp_handle_t)((uintptr_t)p >> CP_GRANULE_SHIFT);
  cp_decode_checked(h); /* names a live object, or one past an array */
  return h;
}

_Noreturn void cp__foreign_slot(const void *slot, const cp_type_desc_t *d) {
  cp__fatal("the address %p of a compact pointer field is taken, but its "
            "'%s' object is not in the compact arena: it was not allocated "
            "by compactptr (an allocation hook other than malloc, a wrapper "
            "around malloc in another file, a pool carving objects out of "
            "its own buffer?); allocate it with malloc(sizeof(...)) where "
            "its type is known",
            slot, d ? d->name : "compact");
}

_Noreturn void cp__offset_mismatch(long kept, long compact, long wide,
                                   const cp_type_desc_t *d,
                                   const char *member) {
  const char *type = d ? d->name : "?";
  if (wide < 0) /* compact-only code: one layout, the compact one */
    cp__fatal("an offset kept at run time is %ld bytes, but member '%s' of "
              "'%s', which this code measured it to, is at %ld in the "
              "compact layout: another file set the offset by hand (the "
              "native layout's?); measure it there too, as (char *)&p->%s - "
              "(char *)p or offsetof",
              kept, member, type, compact, member);
  cp__fatal("an offset kept at run time is %ld bytes, but member '%s' of "
            "'%s', which this code measured it to, is at %ld in the compact "
            "layout and %ld in the wide one: another file set the offset by "
            "hand; measure it there too, as (char *)&p->%s - (char *)p or "
            "offsetof",
            kept, member, type, compact, wide, member);
}

long cp__measured_offset_slow(long kept, const void *at, int n,
                              const long *offsets, cp_type_desc_t *const *types,
                              const char *members) {
  /* The members whose offset the kept one is, in the layout it was
   * measured in (compact before the switch; either after it), of the type
   * of the object the step starts from where that is known. */
  const cp_slab_t *s = at ? cp__slab_of(cp__current_arena(), at) : NULL;
  const cp_type_t *t = s ? s->type : NULL;
  long now = -1;
  bool fits = false, ambiguous = false;
  for (int i = 0; i < n; i++) {
    long c = offsets[2 * i], w = offsets[2 * i + 1];
    bool now_wide = w >= 0 && cp__wide;
    if (kept != c && (!now_wide || kept != w))
      continue;
    fits = true;
    if (t && cp__type_peek(types[i]) != t)
      continue;
    long x = now_wide ? w : c;
    ambiguous |= now >= 0 && now != x;
    now = x;
  }
  if (now >= 0 && !ambiguous)
    return now;
  if (fits && (ambiguous || !t))
    cp__fatal("an offset kept at run time is %ld bytes, which is the "
              "offset of more than one of the members this code measures "
              "it to (%s), one in the compact layout and another in the "
              "wide one, and the step's object does not tell which: put "
              "the member first in its structs (offset 0 in both layouts), "
              "or build the program compact-only",
              kept, members);
  cp__fatal("an offset kept at run time is %ld bytes, but none of the "
            "members this code measures it to (%s) is there in %s: another "
            "file set the offset by hand; measure it there too, as (char "
            "*)&p->member - (char *)p or offsetof",
            kept, members,
            fits ? "the type of the object the step starts from"
                 : "either layout");
}

_Noreturn void cp__encode_unrepresentable(const void *p) {
  if ((uintptr_t)p >= CP_ARENA_REACH)
    cp__fatal("pointer %p stored into a compact field is not in the compact "
              "arena: the object was not allocated by compactptr (a pool or "
              "bump allocator carving objects out of its own buffer, a "
              "wrapper around malloc, a stack or global object, or a "
              "translation unit built without the plugin?)", p);
  cp__fatal("pointer %p stored into a compact field is not aligned to the "
            "%u-byte granule", p, (unsigned)CP_GRANULE);
}
