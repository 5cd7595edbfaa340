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
         (op->kind == CP_FIELD_HANDLE ? (uint64_t)op->len * sizeof(cp_handle_t) : op->len);
}
static uint64_t op_map(const cp_copy_op_t *op, uint64_t off) {
  if (op->kind == CP_FIELD_HANDLE)
    return op->to + (off - op->from) / sizeof(cp_handle_t) * sizeof(void *);
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
      if ((op->kind != CP_FIELD_BYTES && op->kind != CP_FIELD_HANDLE) || off < op->from)
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
      if ((op->kind != CP_FIELD_BYTES && !h) || off < op->to)
        continue;
      uint64_t wend = (uint64_t)op->to + (h ? (uint64_t)op->len * sizeof(void *) : op->len);
      if (end ? off == wend : off < wend)
        return op->from + (h ? (off - op->to) / sizeof(void *) * sizeof(cp_handle_t) : off - op->to);
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

void *cp__translate(void *p) {
  cp_arena_t *a = &cp__compact_arena;
  if (!p || !cp__arena_contains(a, p))
    return p;
  cp_slab_t *s = cp__slab_owning(a, p);
  if (!s || !s->counterpart)
    return p; /* dangling: left as is, the verifier reports it */
  cp_place_t pl = cp__slab_locate(s, (uint64_t)((char *)p - s->start));
  const cp_slab_t *w = s->counterpart;
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
